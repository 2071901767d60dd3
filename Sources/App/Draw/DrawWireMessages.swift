import DrawEngine
import JSON

/// The draw parts of protocol messages (docs/PROTOCOL.md), built from engine values here,
/// where the protocol lives, so the engine stays free of wire formats.
extension DrawRecord {
    /// The `result` message for a round record: the record plus `type` and `contributors`;
    /// `contributions` is left out when there are more than `contributionLimit`.
    func resultMessage(contributionLimit: Int = 256) -> JSONValue? {
        guard case .round(let round) = body, case .object(var members) = json else { return nil }
        members["type"] = .string("result")
        members["contributors"] = .int(Int64(round.contributions.count))
        if round.contributions.count > contributionLimit { members["contributions"] = nil }
        return .object(members)
    }
}

extension BoardRound {
    /// `{"round","prize","winners","voided":[{"winner","reason"}]}` as in `state.rounds`.
    var json: JSONValue {
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
    var message: JSONValue {
        .object(["type": .string("commit"), "round": .int(Int64(round)), "commitment": .string(commitment), "poolHash": .string(poolHash)])
    }
}
