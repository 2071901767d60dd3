import Crypto
import JSON

/// An observer's sign-off (issue #41, docs/FAIRNESS.md §20): "I witnessed the lock of round n"
/// (before its Start: the commitment and the pool the chain holds up to `target`) or "I witnessed
/// the result of round n" (after its reveal). A record of its own in the chain, appended only by an
/// operator with the role `observer`; optionally signed by the observer's own Ed25519 key (made in
/// their browser), so the statement is theirs and not only the server's.
public struct Signoff: Sendable, Equatable {
    public enum Statement: String, Sendable, CaseIterable {
        case lock, result
    }

    public let round: Int
    public let statement: Statement
    /// The chain's head when the observer signed: its index and `hash`.
    public let targetIndex: Int
    public let target: String
    /// A lock's sign-off: the pool lock the pages showed for the round (`commit.poolHash`); nil for a result.
    public let poolHash: String?
    /// The observer's name and operator id, as the host added them.
    public let observer: String
    public let observerId: String
    /// The observer's own key (32 bytes, hex) and signature (64 bytes, hex) of `message`; both or neither.
    public let publicKey: String?
    public let signature: String?

    public init(round: Int, statement: Statement, targetIndex: Int, target: String, poolHash: String? = nil, observer: String,
                observerId: String, publicKey: String? = nil, signature: String? = nil) {
        self.round = round
        self.statement = statement
        self.targetIndex = targetIndex
        self.target = target
        self.poolHash = poolHash
        self.observer = observer
        self.observerId = observerId
        self.publicKey = publicKey
        self.signature = signature
    }

    /// `tombola-signoff-v1:<statement>:<round>:<target>` and, for a lock, `:<poolHash>`, in UTF-8:
    /// what an observer's key signs.
    public static func message(statement: Statement, round: Int, target: String, poolHash: String?) -> [UInt8] {
        Array("tombola-signoff-v1:\(statement.rawValue):\(round):\(target)\(poolHash.map { ":" + $0 } ?? "")".utf8)
    }

    /// The observer's key's fingerprint (SHA-256 of the public key, hex), nil when unsigned.
    public var keyFingerprint: String? {
        publicKey.flatMap(Hex.decode).map { RecordSigning.fingerprint(publicKey: $0) }
    }

    /// Whether the observer's signature (if any) verifies; an unsigned sign-off is well-formed too.
    public var signatureVerifies: Bool {
        guard let publicKey, let signature else { return publicKey == nil && signature == nil }
        guard let key = Hex.decode(publicKey), key.count == 32, Hex.isLowercase(publicKey, byteCount: 32),
              let bytes = Hex.decode(signature), bytes.count == 64, Hex.isLowercase(signature, byteCount: 64) else { return false }
        return Ed25519.verify(publicKey: key, message: Self.message(statement: statement, round: round, target: target, poolHash: poolHash), signature: bytes)
    }

    func write(into members: inout [String: JSONValue]) {
        members["round"] = .int(Int64(round))
        members["statement"] = .string(statement.rawValue)
        members["targetIndex"] = .int(Int64(targetIndex))
        members["target"] = .string(target)
        members["poolHash"] = poolHash.map { .string($0) } ?? .null
        members["observer"] = .string(observer)
        members["observerId"] = .string(observerId)
        members["publicKey"] = publicKey.map { .string($0) } ?? .null
        members["signature"] = signature.map { .string($0) } ?? .null
    }

    static let keys: Set<String> = ["v", "kind", "index", "at", "prev", "hash", "round", "statement", "targetIndex", "target", "poolHash",
                                    "observer", "observerId", "publicKey", "signature"]

    init(json: JSONValue) throws(RecordError) {
        let f = RecordFields(json: json)
        guard let members = json.objectValue, Set(members.keys) == Self.keys else { throw f.fail("signoff") }
        guard let statement = Statement(rawValue: try f.string("statement")) else { throw f.fail("statement") }
        let publicKey = try f.optionalString("publicKey"), signature = try f.optionalString("signature")
        guard (publicKey == nil) == (signature == nil) else { throw f.fail("signature") }
        let poolHash = try f.optionalString("poolHash")
        guard (poolHash != nil) == (statement == .lock) else { throw f.fail("poolHash") }
        self.init(round: try f.int("round"), statement: statement, targetIndex: try f.int("targetIndex"), target: try f.string("target"),
                  poolHash: poolHash, observer: try f.string("observer"), observerId: try f.string("observerId"), publicKey: publicKey, signature: signature)
    }

    /// `{"round","statement","observer","observerId","key"}` as pages show a sign-off (`key`: the fingerprint or null).
    public var pageJSON: JSONValue {
        .object(["round": .int(Int64(round)), "statement": .string(statement.rawValue), "observer": .string(observer),
                 "observerId": .string(observerId), "key": keyFingerprint.map { .string($0) } ?? .null])
    }
}
