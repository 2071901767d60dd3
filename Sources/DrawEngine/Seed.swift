/// A round's secret: 32 bytes from the OS CSPRNG, published after the round is drawn.
public struct Seed: Sendable, Equatable {
    public let bytes: [UInt8]

    /// nil unless exactly 32 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// Production passes `SystemRandomNumberGenerator` (getrandom(2) on Linux); tests pass a seeded generator.
    public static func random(using generator: inout some RandomNumberGenerator) -> Seed {
        var bytes = [UInt8]()
        bytes.reserveCapacity(32)
        for _ in 0..<4 {
            let word = generator.next()
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Seed(bytes: bytes)!
    }

    public var hex: String { Hex.encode(bytes) }

    /// `hex(SHA256(seed))`, docs/FAIRNESS.md §1.
    public var commitment: String { Hashing.sha256Hex(bytes) }
}

/// 16 random bytes a viewer page sent in its `hello`.
public struct Contribution: Sendable, Hashable, Comparable {
    public let bytes: [UInt8]

    /// Accepts exactly 32 hex digits (either case).
    public init?(hex: String) {
        guard hex.utf8.count == 32, let bytes = Hex.decode(hex) else { return nil }
        self.bytes = bytes
    }

    public var hex: String { Hex.encode(bytes) }

    public static func < (lhs: Contribution, rhs: Contribution) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
