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
        Seed(words: (generator.next(), generator.next(), generator.next(), generator.next()))
    }

    /// 32 bytes from the OS CSPRNG (getrandom(2)), for a caller with no generator of its own. Not
    /// `random(using:)` with a local `SystemRandomNumberGenerator`: that generator has no storage, and
    /// ThreadSanitizer checks an inout access through a generic function at a meaningless address, so
    /// two threads committing at once are reported as a "Swift access race" on that one address
    /// (swiftlang/swift#66099; CI's TSan run failed on it). Here the type is known to be empty, and
    /// the compiler leaves the access unchecked (swiftlang/swift#35579).
    public static func fresh() -> Seed {
        var generator = SystemRandomNumberGenerator()
        return Seed(words: (generator.next(), generator.next(), generator.next(), generator.next()))
    }

    /// Four 64-bit words, big-endian, as the seed's 32 bytes.
    private init(words: (UInt64, UInt64, UInt64, UInt64)) {
        var bytes = [UInt8]()
        bytes.reserveCapacity(32)
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        self.bytes = bytes
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
