import JSON

/// How many winners a round was planned to draw (docs/FAIRNESS.md §8, the `lock` record's
/// `plan`): `count = min(perStop, prizeLeft, n)`. A replacement's plan is exactly
/// `count 1, perStop 1`, without prize terms.
public struct LockPlan: Sendable, Equatable {
    public let count: Int
    /// nil: "all".
    public let perStop: Int?
    /// The prize tier's count, and the winners still to draw in it before this round; nil without prizes.
    public let prizeCount: Int?
    public let prizeLeft: Int?

    public init(count: Int, perStop: Int?, prizeCount: Int?, prizeLeft: Int?) {
        self.count = count
        self.perStop = perStop
        self.prizeCount = prizeCount
        self.prizeLeft = prizeLeft
    }

    public static let replacement = LockPlan(count: 1, perStop: 1, prizeCount: nil, prizeLeft: nil)

    var json: JSONValue {
        .object(["count": .int(Int64(count)), "perStop": perStop.map { .int(Int64($0)) } ?? .string("all"),
                 "prizeCount": prizeCount.map { .int(Int64($0)) } ?? .null,
                 "prizeLeft": prizeLeft.map { .int(Int64($0)) } ?? .null])
    }

    init?(json: JSONValue) {
        guard let members = json.objectValue, Set(members.keys) == ["count", "perStop", "prizeCount", "prizeLeft"],
              let count = json["count"]?.intValue.flatMap({ Int(exactly: $0) }) else { return nil }
        func optional(_ key: String) -> Int?? {
            guard let value = json[key] else { return nil }
            if value.isNull { return .some(nil) }
            guard let number = value.intValue.flatMap({ Int(exactly: $0) }) else { return nil }
            return .some(number)
        }
        guard let prizeCount = optional("prizeCount"), let prizeLeft = optional("prizeLeft") else { return nil }
        let perStop: Int?
        if json["perStop"]?.stringValue == "all" {
            perStop = nil
        } else {
            guard let number = json["perStop"]?.intValue.flatMap({ Int(exactly: $0) }) else { return nil }
            perStop = number
        }
        self.init(count: count, perStop: perStop, prizeCount: prizeCount, prizeLeft: prizeLeft)
    }
}

/// The `lock` record stored right before each `round` record (docs/FAIRNESS.md §8, export
/// format v2): what the round's pool was locked to and why every removed position is out.
public struct LockRecord: Sendable, Equatable {
    /// The only reason of `excluded` defined in v2: the host's exclusions (rule 1 of §3).
    public static let hostReason = "host"

    public let round: Int
    /// The pending commitment the round draws with.
    public let commitment: String
    /// The round's `poolHash`.
    public let poolHash: String
    /// A list pool's `entrantsHash` and the entry tree's root (`EntryTree`); nil for a range.
    public let entrantsHash: String?
    public let root: String?
    /// The host's exclusions as positions of the pool (range values, list indices), sorted, distinct.
    public let hostExcluded: [Int64]
    public let plan: LockPlan

    public init(round: Int, commitment: String, poolHash: String, entrantsHash: String?, root: String?,
                hostExcluded: [Int64], plan: LockPlan) {
        self.round = round
        self.commitment = commitment
        self.poolHash = poolHash
        self.entrantsHash = entrantsHash
        self.root = root
        self.hostExcluded = hostExcluded
        self.plan = plan
    }

    func write(into members: inout [String: JSONValue]) {
        members["round"] = .int(Int64(round))
        members["commitment"] = .string(commitment)
        members["poolHash"] = .string(poolHash)
        members["entrantsHash"] = entrantsHash.map { .string($0) } ?? .null
        members["root"] = root.map { .string($0) } ?? .null
        members["excluded"] = .array(hostExcluded.isEmpty ? [] : [
            .object(["why": .string(Self.hostReason), "removed": .array(hostExcluded.map { .int($0) })]),
        ])
        members["plan"] = plan.json
    }

    /// nil when a field is missing or malformed (an unknown `why` included).
    init?(json: JSONValue) {
        guard let round = json["round"]?.intValue.flatMap({ Int(exactly: $0) }),
              let commitment = json["commitment"]?.stringValue, let poolHash = json["poolHash"]?.stringValue,
              let entrantsValue = json["entrantsHash"], let rootValue = json["root"],
              let excluded = json["excluded"]?.arrayValue, excluded.count <= 1,
              let plan = json["plan"].flatMap(LockPlan.init(json:)) else { return nil }
        func hash(_ value: JSONValue) -> String?? {
            if value.isNull { return .some(nil) }
            return value.stringValue.map { .some($0) }
        }
        guard let entrantsHash = hash(entrantsValue), let root = hash(rootValue) else { return nil }
        var host = [Int64]()
        for item in excluded {
            guard let members = item.objectValue, Set(members.keys) == ["why", "removed"],
                  item["why"]?.stringValue == Self.hostReason, let values = item["removed"]?.arrayValue, !values.isEmpty else { return nil }
            for value in values {
                guard let number = value.intValue else { return nil }
                host.append(number)
            }
        }
        self.init(round: round, commitment: commitment, poolHash: poolHash, entrantsHash: entrantsHash, root: root,
                  hostExcluded: host, plan: plan)
    }

    /// The keys a `lock` record has (it is closed, like the pool object).
    static let keys: Set<String> = ["v", "kind", "index", "at", "prev", "hash", "round", "commitment", "poolHash",
                                    "entrantsHash", "root", "excluded", "plan"]
}
