import BLS12381
import Crypto
import DrawEngine
import JSON

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

    /// Does the BLS signature verify under the chain's key (message SHA-256(u64be(round)), §13)?
    public func signatureVerifies(under key: BLSSignature.PublicKey) -> Bool {
        guard let bytes = Self.bytes(signature) else { return false }
        return BLSSignature.verifyDrand(round: round, signature: bytes, publicKey: key)
    }

    /// randomness == hex(SHA-256(signature bytes)).
    public var randomnessMatchesSignature: Bool {
        guard let bytes = Self.bytes(signature) else { return false }
        return SHA256.hexDigest(bytes) == randomness
    }

    static func isHex(_ text: String, bytes: Int) -> Bool {
        text.utf8.count == bytes * 2 && text.lowercased() == text && Hex.decode(text) != nil
    }

    static func bytes(_ hex: String) -> [UInt8]? { Hex.decode(hex) }
}

/// Why a relay's answer was refused.
public enum BeaconProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON
    case badField(String)
    case wrongRound(UInt64)
    case randomnessMismatch
    case badSignature

    public var description: String {
        switch self {
        case .notJSON: "answer is not a JSON object"
        case .badField(let name): "bad field \(name)"
        case .wrongRound(let round): "answered round \(round)"
        case .randomnessMismatch: "randomness is not SHA-256(signature)"
        case .badSignature: "signature does not verify under the chain's public key"
        }
    }
}

extension BeaconValue {
    /// hex(SHA-256(signature bytes)), what `randomness` must be.
    public var sha256OfSignature: String { SHA256.hexDigest(Self.bytes(signature) ?? []) }
}
