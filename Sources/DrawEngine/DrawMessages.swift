/// The draw parts of protocol messages (docs/PROTOCOL.md), built from engine values so the
/// App does not re-spell field names.
extension DrawRecord {
    /// The `result` message for a round record: the record plus `type` and `contributors`;
    /// `contributions` is left out when there are more than `contributionLimit`. A no-show
    /// replacement also carries `voidReason`, the reason of the void it answers (which lives in
    /// the void record, not in this one), so live pages show it without reloading.
    public func resultMessage(contributionLimit: Int = 256, voidReason: String? = nil) -> JSONValue? {
        guard case .round(let round) = body, case .object(var members) = json else { return nil }
        members["type"] = .string("result")
        members["contributors"] = .int(Int64(round.contributions.count))
        if round.replaces != nil, let voidReason { members["voidReason"] = .string(voidReason) }
        if round.contributions.count > contributionLimit { members["contributions"] = nil }
        return .object(members)
    }
}

extension BoardRound {
    /// `{"round","prize","winners","voided":[{"winner","reason"}]}` as in `state.rounds`.
    public var json: JSONValue {
        .object([
            "round": .int(Int64(round)),
            "prize": prize.map { .string($0) } ?? .null,
            "winners": .array(winners.map(\.json)),
            "voided": .array(voided.map { .object(["winner": $0.winner.json, "reason": .string($0.reason)]) }),
        ])
    }
}

extension PendingCommit {
    /// The `commit` message.
    public var message: JSONValue {
        .object(["type": .string("commit"), "round": .int(Int64(round)), "commitment": .string(commitment), "poolHash": .string(poolHash)])
    }
}
