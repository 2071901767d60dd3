import JSON

/// A beacon-sealed round's lock (the `beacon` record, docs/FAIRNESS.md §13): everything the
/// round's `round` record will repeat except its winners, how many it draws, and the drand round
/// whose randomness will decide them.
public struct BeaconLock: Sendable, Equatable {
    /// The round's fields as its `round` record will hold them, `winners` empty.
    public let lock: RoundRecord
    public let count: Int
    public let chain: BeaconChain
    public let beaconRound: UInt64
    public let relays: [String]
}

/// The drand value of a sealed round (the `beaconValue` record).
public struct BeaconSealValue: Sendable, Equatable {
    public let round: Int
    public let beaconRound: UInt64
    public let randomness: String
    public let signature: String
    /// `hash` of the round's `beacon` record.
    public let lock: String
    /// The relays that served the same value.
    public let relays: [String]
}

/// The derivation key of a sealed round (§13).
public enum BeaconSeal {
    public static let name = "tombola-drand-v1"
    /// A lock stored less than this before its drand round is due would not be sealed: R is the
    /// first round due at least this long after the lock's `at`.
    public static let lockMarginMillis: Int64 = 1_000

    /// key = SHA256("tombola-drand-v1" || 0x00 || lockHash || randomness), 32 bytes each from hex.
    public static func key(lockHash: String, randomness: String) -> Seed? {
        guard let lock = Hex.decode(lockHash), lock.count == 32, let value = Hex.decode(randomness), value.count == 32 else { return nil }
        return Seed(bytes: Hashing.sha256(Array(name.utf8) + [0] + lock + value))
    }

    /// The drand round a lock stored at `lockedAt` (Unix ms) is sealed with.
    public static func round(of chain: BeaconChain, lockedAt: Int64) -> UInt64 {
        chain.firstRound(dueAtOrAfter: lockedAt + lockMarginMillis)
    }

    /// randomness == hex(SHA-256(signature)).
    public static func randomnessMatches(randomness: String, signature: String) -> Bool {
        guard let bytes = Hex.decode(signature), bytes.count == 48, Hex.isLowercase(signature, byteCount: 48) else { return false }
        return Hashing.sha256Hex(bytes) == randomness
    }
}

extension BeaconChain {
    var json: JSONValue {
        .object(["hash": .string(hash), "publicKey": .string(publicKey), "genesis": .int(genesis), "period": .int(period),
                 "scheme": .string(Self.scheme)])
    }

    init?(json: JSONValue) {
        guard let hash = json["hash"]?.stringValue, let key = json["publicKey"]?.stringValue,
              let genesis = json["genesis"]?.intValue, let period = json["period"]?.intValue,
              json["scheme"]?.stringValue == Self.scheme, json.objectValue?.count == 5 else { return nil }
        self.init(hash: hash, publicKey: key, genesis: genesis, period: period)
        guard isWellFormed else { return nil }
    }
}

extension DrawRecord {
    /// The fields of the three beacon kinds.
    static func beaconMembers(_ body: RecordBody) -> [String: JSONValue] {
        switch body {
        case .beacon(let b):
            var members = roundMembers(b.lock)
            members["winners"] = nil
            // A void's replacement names what it replaces (FAIRNESS §13, "Voids"); a round's lock has no such key.
            if b.lock.replaces == nil { members["replaces"] = nil }
            members["count"] = .int(Int64(b.count))
            members["chain"] = b.chain.json
            members["beaconRound"] = .int(Int64(b.beaconRound))
            members["relays"] = .array(b.relays.map { .string($0) })
            return members
        case .beaconValue(let v):
            return ["round": .int(Int64(v.round)), "beaconRound": .int(Int64(v.beaconRound)), "randomness": .string(v.randomness),
                    "signature": .string(v.signature), "lock": .string(v.lock), "relays": .array(v.relays.map { .string($0) })]
        case .beaconVoid(let round, let beaconRound, let reason):
            return ["round": .int(Int64(round)), "beaconRound": .int(Int64(beaconRound)), "reason": .string(reason)]
        default:
            return [:]
        }
    }

    static func parseBeacon(_ json: JSONValue) throws(RecordError) -> RecordBody {
        let f = RecordFields(json: json)
        guard let beaconRound = json["beaconRound"]?.intValue, beaconRound >= 1 else { throw f.fail("beaconRound") }
        switch json["kind"]?.stringValue {
        case "beacon":
            guard var members = json.objectValue else { throw f.fail("kind") }
            members["winners"] = .array([])
            members["replaces"] = json["replaces"] ?? .null
            let lock = try parseRound(.object(members))
            guard let count = json["count"]?.intValue, count >= 1, let small = Int(exactly: count) else { throw f.fail("count") }
            guard let chain = json["chain"].flatMap(BeaconChain.init(json:)) else { throw f.fail("chain") }
            return .beacon(BeaconLock(lock: lock, count: small, chain: chain, beaconRound: UInt64(beaconRound),
                                      relays: try f.strings("relays")))
        case "beaconValue":
            return .beaconValue(BeaconSealValue(round: try f.int("round"), beaconRound: UInt64(beaconRound),
                                                randomness: try f.string("randomness"), signature: try f.string("signature"),
                                                lock: try f.string("lock"), relays: try f.strings("relays")))
        default:
            return .beaconVoid(round: try f.int("round"), beaconRound: UInt64(beaconRound), reason: try f.string("reason"))
        }
    }
}
