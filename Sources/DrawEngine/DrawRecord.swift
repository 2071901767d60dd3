import JSON

/// Why a commitment was published (docs/FAIRNESS.md §8).
public enum CommitReason: String, Sendable {
    case open, next, restart
}

/// The voided winner a replacement stands in for.
public struct Replacement: Sendable, Equatable {
    public let round: Int
    public let winner: DrawValue
    /// `hash` of the `void` record.
    public let void: String
}

/// Everything needed to recheck one drawn round.
public struct RoundRecord: Sendable, Equatable {
    public let round: Int
    public let prize: String?
    public let prizeIndex: Int?
    public let algorithm: String
    public let pool: PoolSpec
    public let poolHash: String
    public let eligible: UInt64
    public let repeats: Bool
    public let contributions: [String]
    public let audience: String?
    public let entropy: String
    public let commitment: String
    public let seed: String
    public let winners: [DrawValue]
    public let replaces: Replacement?
    /// A draw whose winners must claim: the entrants the same sampling picks after the winners,
    /// in order (docs/FAIRNESS.md §13); nil (no key in the record) otherwise.
    public var alternates: [DrawValue]? = nil
    /// A rehearsal round (issue 45): `"rehearsal":true` in the record, never mixed with real rounds
    /// in one session (docs/FAIRNESS.md §19); absent (false) otherwise.
    public var rehearsal: Bool = false
    /// A round of a reverse raffle (issue 45): its `winners` are drawn *out*; `"reverse":true` in
    /// the record, absent (false) otherwise (docs/FAIRNESS.md §21).
    public var reverse: Bool = false
    /// The reverse raffle's round that leaves one entrant in: that entrant, the winner (`lastIn`).
    public var lastIn: DrawValue? = nil

    /// Who won in this round: its `winners`, except in a reverse raffle, where they were drawn out
    /// and only the last one in (if this round left one) won (docs/FAIRNESS.md §21). What another
    /// draw's `excludeWinnersOf` leaves out (§3).
    public var won: [DrawValue] { reverse ? (lastIn.map { [$0] } ?? []) : winners }
}

public enum RecordBody: Sendable, Equatable {
    case commit(commitment: String, reason: CommitReason)
    /// `tickets`/`groups` only for a detailed list (docs/FAIRNESS.md §3).
    /// `books` only for ticket books (their tickets are `names`).
    case entrants(hash: String, names: [String], tickets: [UInt64]? = nil, groups: [String]? = nil, books: [TicketBook]? = nil)
    /// Stored right before its `round` (export format v2, docs/FAIRNESS.md §8).
    case lock(LockRecord)
    case round(RoundRecord)
    case void(round: Int, winner: DrawValue, reason: String)
    /// An unclaimed win passed to the round's next alternate (nil: none left); docs/FAIRNESS.md §15.
    case pass(round: Int, winner: DrawValue, alternate: DrawValue?, reason: String)
    /// `rehearsal`: the wipe of a rehearsal session (`"rehearsal":true`, docs/FAIRNESS.md §19).
    case clear(rehearsal: Bool = false)
    /// A beacon-sealed round's lock, its drand value, or its void (docs/FAIRNESS.md §13).
    case beacon(BeaconLock)
    case beaconValue(BeaconSealValue)
    case beaconVoid(round: Int, beaconRound: UInt64, reason: String)
    /// An observer's sign-off of a round's lock or result (issue #41, docs/FAIRNESS.md §20).
    case signoff(Signoff)

    public var kind: String {
        switch self {
        case .commit: "commit"
        case .entrants: "entrants"
        case .lock: "lock"
        case .round: "round"
        case .void: "void"
        case .pass: "pass"
        case .clear: "clear"
        case .beacon: "beacon"
        case .beaconValue: "beaconValue"
        case .beaconVoid: "beaconVoid"
        case .signoff: "signoff"
        }
    }
}

/// Why a stored record could not be read.
public struct RecordError: Error, Equatable, Sendable {
    public let reason: String
}

/// One link of a draw's append-only hash chain. Storage keeps `canonicalJSON` verbatim
/// with `index`, `hash` and `prev` beside it.
public struct DrawRecord: Sendable, Equatable {
    public let index: Int
    /// Server time, integer Unix milliseconds.
    public let at: Int64
    public let prev: String
    public let hash: String
    public let body: RecordBody
    /// The whole record, `hash` included.
    public let json: JSONValue
    /// A `commit` record's writer (issue #47), nil when it names none.
    public var software: SoftwareIdentity? { SoftwareIdentity(json: json["software"]) }
    /// The server's signature of `hash`, stored beside the record and outside it (issue #47,
    /// docs/FAIRNESS.md §17); nil for a record written before signing or not yet stored.
    /// Not part of the record's identity (`==`).
    public var signature: RecordSignature? = nil
    /// An outside RFC 3161 time-stamp of `hash`, stored beside the record (issue #47,
    /// docs/FAIRNESS.md §18); nil for most records. Not part of the record's identity either.
    public var timeStamp: RecordTimeStamp? = nil

    public static func == (a: DrawRecord, b: DrawRecord) -> Bool {
        a.index == b.index && a.at == b.at && a.prev == b.prev && a.hash == b.hash && a.body == b.body && a.json == b.json
    }

    public static let genesisPrev = String(repeating: "0", count: 64)

    public var kind: String { body.kind }

    /// The bytes to store and export: `canon(record)` with its `hash`.
    public var canonicalJSON: String { json.canonicalString }

    /// `software`: a `commit` record's writer (`SoftwareIdentity`), nil for other kinds.
    init(index: Int, at: Int64, prev: String, body: RecordBody, software: SoftwareIdentity? = nil) {
        var members: [String: JSONValue] = ["v": .int(1), "kind": .string(body.kind), "index": .int(Int64(index)),
                                            "at": .int(at), "prev": .string(prev)]
        switch body {
        case .commit(let commitment, let reason):
            members["commitment"] = .string(commitment)
            members["reason"] = .string(reason.rawValue)
            if let software { members["software"] = software.json }
        case .entrants(let hash, let names, let tickets, let groups, let books):
            members["entrantsHash"] = .string(hash)
            if let books { members["books"] = .array(books.map(\.json)) }
            members["entrants"] = .array(names.map { .string($0) })
            if let tickets { members["tickets"] = .array(tickets.map { .int(Int64($0)) }) }
            if let groups { members["groups"] = .array(groups.map { .string($0) }) }
        case .lock(let lock):
            lock.write(into: &members)
        case .round(let r):
            members.merge(Self.roundMembers(r)) { $1 }
        case .beacon, .beaconValue, .beaconVoid:
            members.merge(Self.beaconMembers(body)) { $1 }
        case .void(let round, let winner, let reason):
            members["round"] = .int(Int64(round))
            members["winner"] = winner.json
            members["reason"] = .string(reason)
        case .pass(let round, let winner, let alternate, let reason):
            members["round"] = .int(Int64(round))
            members["winner"] = winner.json
            members["alternate"] = alternate?.json ?? .null
            members["reason"] = .string(reason)
        case .clear(let rehearsal):
            if rehearsal { members["rehearsal"] = .bool(true) }
        case .signoff(let signoff):
            signoff.write(into: &members)
        }
        let hash = Hashing.sha256Hex(JSONValue.object(members).canonicalBytes)
        members["hash"] = .string(hash)
        self.index = index
        self.at = at
        self.prev = prev
        self.hash = hash
        self.body = body
        self.json = .object(members)
    }

    /// The fields of a `round` record (docs/FAIRNESS.md §8).
    static func roundMembers(_ r: RoundRecord) -> [String: JSONValue] {
        var members = [String: JSONValue]()
        members["round"] = .int(Int64(r.round))
        members["prize"] = r.prize.map { .string($0) } ?? .null
        members["prizeIndex"] = r.prizeIndex.map { .int(Int64($0)) } ?? .null
        members["algorithm"] = .string(r.algorithm)
        members["pool"] = r.pool.json
        members["poolHash"] = .string(r.poolHash)
        members["eligible"] = .int(Int64(r.eligible))
        members["repeats"] = .bool(r.repeats)
        members["contributions"] = .array(r.contributions.map { .string($0) })
        members["audience"] = r.audience.map { .string($0) } ?? .null
        members["entropy"] = .string(r.entropy)
        members["commitment"] = .string(r.commitment)
        members["seed"] = .string(r.seed)
        members["winners"] = .array(r.winners.map(\.json))
        members["replaces"] = r.replaces.map {
            .object(["round": .int(Int64($0.round)), "winner": $0.winner.json, "void": .string($0.void)])
        } ?? .null
        if let alternates = r.alternates { members["alternates"] = .array(alternates.map(\.json)) }
        if r.rehearsal { members["rehearsal"] = .bool(true) }
        if r.reverse { members["reverse"] = .bool(true) }
        if let lastIn = r.lastIn { members["lastIn"] = lastIn.json }
        return members
    }

    /// Reads a stored or exported record. The hash is not checked here (see `computedHash`).
    public init(text: String) throws(RecordError) {
        do {
            try self.init(json: try JSONValue.parse(text))
        } catch let error as RecordError {
            throw error
        } catch {
            throw RecordError(reason: "not JSON")
        }
    }

    public init(json: JSONValue) throws(RecordError) {
        func fail(_ field: String) -> RecordError { RecordError(reason: "bad field \(field)") }
        guard json.objectValue != nil else { throw RecordError(reason: "not an object") }
        guard json["v"]?.intValue == 1 else { throw fail("v") }
        guard let index = json["index"]?.intValue, index >= 0 else { throw fail("index") }
        guard let at = json["at"]?.intValue else { throw fail("at") }
        guard let prev = json["prev"]?.stringValue else { throw fail("prev") }
        guard let hash = json["hash"]?.stringValue else { throw fail("hash") }
        let f = RecordFields(json: json)

        let body: RecordBody
        switch json["kind"]?.stringValue {
        case "commit":
            guard let reason = CommitReason(rawValue: try f.string("reason")) else { throw fail("reason") }
            body = .commit(commitment: try f.string("commitment"), reason: reason)
            // Optional (issue #47): absent from records written before it.
            if json["software"] != nil, SoftwareIdentity(json: json["software"]) == nil { throw fail("software") }
        case "entrants":
            var tickets: [UInt64]? = nil
            if let items = json["tickets"] {
                guard let array = items.arrayValue else { throw fail("tickets") }
                tickets = []
                for item in array {
                    guard let value = item.intValue, value >= 1, value <= Int64(DrawLimits.maxTickets) else { throw fail("tickets") }
                    tickets!.append(UInt64(value))
                }
            }
            let groups = json["groups"] == nil ? nil : try f.strings("groups")
            var books: [TicketBook]? = nil
            if let items = json["books"] {
                guard let array = items.arrayValue else { throw fail("books") }
                books = []
                for item in array {
                    guard let book = TicketBook(json: item) else { throw fail("books") }
                    books!.append(book)
                }
            }
            body = .entrants(hash: try f.string("entrantsHash"), names: try f.strings("entrants"), tickets: tickets, groups: groups,
                             books: books)
        case "lock":
            guard let members = json.objectValue, Set(members.keys) == LockRecord.keys else { throw fail("lock") }
            guard let lock = LockRecord(json: json) else { throw fail("lock") }
            body = .lock(lock)
        case "round":
            body = .round(try Self.parseRound(json))
        case "beacon", "beaconValue", "beaconVoid":
            body = try Self.parseBeacon(json)
        case "void":
            guard let winner = json["winner"].flatMap(DrawValue.init(json:)) else { throw fail("winner") }
            body = .void(round: try f.int("round"), winner: winner, reason: try f.string("reason"))
        case "pass":
            guard let winner = json["winner"].flatMap(DrawValue.init(json:)), let alternate = json["alternate"] else { throw fail("winner") }
            var next: DrawValue? = nil
            if !alternate.isNull {
                guard let value = DrawValue(json: alternate) else { throw fail("alternate") }
                next = value
            }
            body = .pass(round: try f.int("round"), winner: winner, alternate: next, reason: try f.string("reason"))
        case "clear":
            // Only `true` when present (a wipe of rehearsal rounds).
            if let flag = json["rehearsal"], flag != .bool(true) { throw fail("rehearsal") }
            body = .clear(rehearsal: json["rehearsal"] != nil)
        case "signoff":
            body = .signoff(try Signoff(json: json))
        default:
            throw fail("kind")
        }
        self.index = Int(index)
        self.at = at
        self.prev = prev
        self.hash = hash
        self.body = body
        self.json = json
    }

    /// The fields of a `round` record (also the lock of a `beacon` record).
    static func parseRound(_ json: JSONValue) throws(RecordError) -> RoundRecord {
        let f = RecordFields(json: json)
        guard let pool = json["pool"].flatMap(PoolSpec.init(json:)) else { throw f.fail("pool") }
        guard let eligible = json["eligible"]?.intValue, eligible >= 0 else { throw f.fail("eligible") }
        guard let repeats = json["repeats"]?.boolValue else { throw f.fail("repeats") }
        guard let winnerItems = json["winners"]?.arrayValue else { throw f.fail("winners") }
        var winners = [DrawValue]()
        for item in winnerItems {
            guard let winner = DrawValue(json: item) else { throw f.fail("winners") }
            winners.append(winner)
        }
        var prizeIndex: Int? = nil
        if let value = json["prizeIndex"], !value.isNull {
            guard let index = value.intValue.flatMap({ Int(exactly: $0) }) else { throw f.fail("prizeIndex") }
            prizeIndex = index
        }
        var replaces: Replacement? = nil
        if let value = json["replaces"], !value.isNull {
            guard let round = value["round"]?.intValue.flatMap({ Int(exactly: $0) }),
                  let winner = value["winner"].flatMap(DrawValue.init(json:)),
                  let void = value["void"]?.stringValue else { throw f.fail("replaces") }
            replaces = Replacement(round: round, winner: winner, void: void)
        }
        var alternates: [DrawValue]? = nil
        if let value = json["alternates"] {
            guard let items = value.arrayValue else { throw f.fail("alternates") }
            alternates = []
            for item in items {
                guard let alternate = DrawValue(json: item) else { throw f.fail("alternates") }
                alternates!.append(alternate)
            }
        }
        if let flag = json["rehearsal"], flag != .bool(true) { throw f.fail("rehearsal") }
        if let flag = json["reverse"], flag != .bool(true) { throw f.fail("reverse") }
        var lastIn: DrawValue? = nil
        if let value = json["lastIn"] {
            guard let last = DrawValue(json: value) else { throw f.fail("lastIn") }
            lastIn = last
        }
        return RoundRecord(
            round: try f.int("round"), prize: try f.optionalString("prize"), prizeIndex: prizeIndex,
            algorithm: try f.string("algorithm"), pool: pool, poolHash: try f.string("poolHash"),
            eligible: UInt64(eligible), repeats: repeats, contributions: try f.strings("contributions"),
            audience: try f.optionalString("audience"), entropy: try f.string("entropy"),
            commitment: try f.string("commitment"), seed: try f.string("seed"), winners: winners, replaces: replaces,
            alternates: alternates, rehearsal: json["rehearsal"] != nil, reverse: json["reverse"] != nil, lastIn: lastIn)
    }

    /// `hex(SHA256(canon(record without "hash")))`; equals `hash` unless the record was altered.
    public var computedHash: String {
        guard var members = json.objectValue else { return "" }
        members["hash"] = nil
        return Hashing.sha256Hex(JSONValue.object(members).canonicalBytes)
    }
}

/// Typed reads of a record's fields, each failing with "bad field <name>".
struct RecordFields {
    let json: JSONValue

    func fail(_ field: String) -> RecordError { RecordError(reason: "bad field \(field)") }

    func string(_ key: String) throws(RecordError) -> String {
        guard let value = json[key]?.stringValue else { throw fail(key) }
        return value
    }
    func int(_ key: String) throws(RecordError) -> Int {
        guard let value = json[key]?.intValue, let small = Int(exactly: value) else { throw fail(key) }
        return small
    }
    func optionalString(_ key: String) throws(RecordError) -> String? {
        guard let value = json[key] else { throw fail(key) }
        if value.isNull { return nil }
        guard let text = value.stringValue else { throw fail(key) }
        return text
    }
    func strings(_ key: String) throws(RecordError) -> [String] {
        guard let items = json[key]?.arrayValue else { throw fail(key) }
        var out = [String]()
        for item in items {
            guard let text = item.stringValue else { throw fail(key) }
            out.append(text)
        }
        return out
    }
}
