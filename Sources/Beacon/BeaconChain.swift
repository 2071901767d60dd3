import Crypto
import JSON

/// A drand chain the server binds rounds to (docs/FAIRNESS.md §13): its hash (the relays' URL
/// path), its BLS public key (pinned, checked by the script, never fetched), and its timing.
public struct BeaconChain: Sendable, Equatable {
    /// 64 lower-case hex: drand's chain hash.
    public let hash: String
    /// Lower-case hex of the compressed BLS12-381 G2 public key (96 bytes).
    public let publicKey: String
    /// Unix seconds when round 1 was due.
    public let genesis: Int64
    /// Seconds between rounds.
    public let period: Int64

    public init(hash: String, publicKey: String, genesis: Int64, period: Int64) {
        self.hash = hash
        self.publicKey = publicKey
        self.genesis = genesis
        self.period = period
    }

    /// The scheme every chain here uses: signatures on G1, public key on G2, message
    /// SHA-256(u64be(round)), RFC 9380 hash-to-curve with `dst`.
    public static let scheme = "bls-unchained-g1-rfc9380"
    public static let dst = "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"

    /// The League of Entropy's quicknet (drand's `/{hash}/info`, pinned).
    public static let quicknet = BeaconChain(
        hash: "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
        publicKey: "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a",
        genesis: 1_692_803_367, period: 3)

    /// Two League of Entropy relays run by different operators.
    public static let defaultRelays = ["https://api.drand.sh", "https://drand.cloudflare.com"]

    /// Unix milliseconds when `round` (≥ 1) is due: genesis + (round − 1) · period.
    public func dueMillis(of round: UInt64) -> Int64 {
        (genesis + Int64(round - 1) * period) * 1000
    }

    /// The first round due at or after `unixMillis` (round 1 before genesis).
    public func firstRound(dueAtOrAfter unixMillis: Int64) -> UInt64 {
        let since = unixMillis - genesis * 1000
        guard since > 0 else { return 1 }
        let step = period * 1000
        return UInt64((since + step - 1) / step) + 1
    }

    /// Is this a well-formed chain (hex of the right lengths, period ≥ 1)?
    public var isWellFormed: Bool {
        BeaconValue.isHex(hash, bytes: 32) && BeaconValue.isHex(publicKey, bytes: 96) && period >= 1 && genesis > 0
    }
}

/// One round of a chain as a relay serves it (drand's HTTP API: `round`, `randomness`, `signature`).
public struct BeaconValue: Sendable, Equatable {
    public let round: UInt64
    /// 64 lower-case hex; must equal SHA-256 of the signature's bytes.
    public let randomness: String
    /// Lower-case hex of the compressed G1 signature (48 bytes).
    public let signature: String

    public init(round: UInt64, randomness: String, signature: String) {
        self.round = round
        self.randomness = randomness
        self.signature = signature
    }

    /// Reads a relay's JSON answer for `round`; the reason when it is not a valid value of it.
    public static func parse(_ body: [UInt8], round expected: UInt64) -> Result<BeaconValue, BeaconProblem> {
        guard let json = try? JSONValue.parse(body), json.objectValue != nil else { return .failure(.notJSON) }
        guard let round = json["round"]?.intValue, round >= 1 else { return .failure(.badField("round")) }
        guard UInt64(round) == expected else { return .failure(.wrongRound(UInt64(round))) }
        guard let randomness = json["randomness"]?.stringValue.map({ $0.lowercased() }), isHex(randomness, bytes: 32) else {
            return .failure(.badField("randomness"))
        }
        guard let signature = json["signature"]?.stringValue.map({ $0.lowercased() }), isHex(signature, bytes: 48) else {
            return .failure(.badField("signature"))
        }
        let value = BeaconValue(round: expected, randomness: randomness, signature: signature)
        guard value.randomnessMatchesSignature else { return .failure(.randomnessMismatch) }
        return .success(value)
    }

    /// randomness == hex(SHA-256(signature bytes)): what the server checks (the pairing is the script's).
    public var randomnessMatchesSignature: Bool {
        guard let bytes = Self.bytes(signature) else { return false }
        return SHA256.hexDigest(bytes) == randomness
    }

    static func isHex(_ text: String, bytes: Int) -> Bool {
        text.utf8.count == bytes * 2 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    static func bytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let high = nibble(digits[i]), let low = nibble(digits[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}

/// Why a relay's answer was refused.
public enum BeaconProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON
    case badField(String)
    case wrongRound(UInt64)
    case randomnessMismatch

    public var description: String {
        switch self {
        case .notJSON: "answer is not a JSON object"
        case .badField(let name): "bad field \(name)"
        case .wrongRound(let round): "answered round \(round)"
        case .randomnessMismatch: "randomness is not SHA-256(signature)"
        }
    }
}

extension BeaconValue {
    /// hex(SHA-256(signature bytes)), what `randomness` must be.
    public var sha256OfSignature: String { SHA256.hexDigest(Self.bytes(signature) ?? []) }
}
