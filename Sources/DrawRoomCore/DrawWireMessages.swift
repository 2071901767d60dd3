import DrawEngine
import JSON

/// The draw parts of protocol messages (docs/PROTOCOL.md), built from engine values here,
/// where the protocol lives, so the engine stays free of wire formats.
extension DrawRecord {
    /// The `result` message for a round record: the record plus `type` and `contributors`;
    /// `contributions` is left out when there are more than `contributionLimit`, and a list of
    /// the `pool` longer than `poolListLimit` (`removed`: the positions of every earlier winner,
    /// which grows round after round) becomes its count (`removedCount`), so a reveal costs what
    /// its own winners cost, not the whole history. Pages recheck such a round from the stored
    /// record (the export). A no-show replacement also carries `voidReason`, the reason of the
    /// void it answers (which lives in the void record, not in this one), so live pages show it
    /// without reloading.
    public func resultMessage(contributionLimit: Int = 256, poolListLimit: Int = 256, voidReason: String? = nil) -> JSONValue? {
        guard case .round(let round) = body, case .object(var members) = json else { return nil }
        members["type"] = .string("result")
        members["contributors"] = .int(Int64(round.contributions.count))
        if round.replaces != nil, let voidReason { members["voidReason"] = .string(voidReason) }
        if round.contributions.count > contributionLimit { members["contributions"] = nil }
        if case .object(var pool)? = members["pool"],
           pool.contains(where: { ($0.value.arrayValue?.count ?? 0) > poolListLimit }) {
            for (name, value) in pool {
                guard let items = value.arrayValue, items.count > poolListLimit else { continue }
                pool[name] = nil
                pool[name + "Count"] = .int(Int64(items.count))
            }
            members["pool"] = .object(pool)
        }
        return .object(members)
    }
}

extension DrawRecord {
    /// The `void` message for a `void` record: `{"type":"void","round","winner","reason"}`, sent
    /// before the replacement's `result` so every page can show why the winner was voided.
    public func voidMessage() -> JSONValue? {
        guard case .void(let round, let winner, let reason) = body else { return nil }
        return .object(["type": .string("void"), "round": .int(Int64(round)), "winner": winner.json, "reason": .string(reason)])
    }
}

extension BoardRound {
    /// `{"round","prize","winners","voided":[{"winner","reason"}]}` with every winner (`state.rounds`
    /// lists `summaryJSON()`, the first ones; BoardSummary.swift).
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
    /// The `commit` message: the commitment and pool lock of the next round, what is left, and
    /// what that round will draw (`plan`), so every page announces the right prize from now on.
    public var message: JSONValue {
        .object([
            "type": .string("commit"), "round": .int(Int64(round)), "commitment": .string(commitment),
            "poolHash": .string(poolHash), "remaining": .int(Int64(clamping: remaining)), "exhausted": .bool(remaining == 0),
            "currentPrize": currentPrize.map { .int(Int64($0)) } ?? .null, "prizesDone": .bool(prizesDone),
            "plan": plan.json,
        ])
    }
}

extension RoundPlan {
    /// `{"round","prize","prizeIndex","count","perStop","cut","prizeLeft"}` as in `state.plan` and `commit.plan`.
    public var json: JSONValue {
        let asked: JSONValue = if case .count(let n) = perStop { .int(Int64(n)) } else { .string("all") }
        return .object([
            "round": .int(Int64(round)),
            "prize": prize.map { .string($0) } ?? .null,
            "prizeIndex": prizeIndex.map { .int(Int64($0)) } ?? .null,
            "count": .int(Int64(count)),
            "perStop": asked,
            "cut": cut.map { .string($0.rawValue) } ?? .null,
            "prizeLeft": prizeLeft.map { .int(Int64($0)) } ?? .null,
        ])
    }
}

extension DrawConfig {
    /// The settings as `state` and `config` messages carry them (docs/PROTOCOL.md, "Settings
    /// summary"): a list pool by its summary (`count`, `entrantsHash`, `detailed`) and the
    /// exclusions by their number, so a join costs the same for 100 or 100,000 names. `hash` is
    /// the SHA-256 of the full settings text that `GET /api/draws/<code>/config` serves.
    public func summaryJSON(entrantsHash: String?, entrantCount: Int?, hash: String) -> JSONValue {
        var small = self
        small.exclude = []
        if case .range = pool {} else { small.pool = .range(from: 1, to: 2) }
        guard case .object(var members) = small.json else { return small.json }
        switch pool {
        case .range: break
        case .checkin(let ids):
            // The checked-in entrants' public ids: `GET …/entries/pool`.
            members["pool"] = .object(["kind": .string("checkin"), "count": .int(Int64(ids.count))])
        case .books(let books):
            // The books themselves (a handful): pages number the tickets and colour them without a download.
            members["pool"] = .object([
                "kind": .string("books"), "books": .array(books.map(\.json)), "count": .int(Int64(entrantCount ?? 0)),
                "entrantsHash": entrantsHash.map { .string($0) } ?? .null,
            ])
        case .list, .entries:
            var detailed = false
            if case .entries = pool { detailed = true }
            members["pool"] = .object([
                "kind": .string("list"), "count": .int(Int64(entrantCount ?? 0)),
                "entrantsHash": entrantsHash.map { .string($0) } ?? .null, "detailed": .bool(detailed),
            ])
        }
        members["exclude"] = nil
        members["privateSecret"] = nil  // the stored settings' only: never on a page
        members["excludeCount"] = .int(Int64(exclude.count))
        members["hash"] = .string(hash)
        return .object(members)
    }
}
