import DrawEngine
import JSON

/// The board as the `state` snapshot carries it, bounded whatever the rounds hold (issue #18):
/// the latest rounds, each with its first winners and its winner count, and the rest counted.
/// The whole board is paged from `GET /api/draws/<code>/rounds/<round>/winners` (`BoardPages`).
public enum BoardSummary {
    /// Winners listed per round in `state.rounds` and in `state.result`.
    public static let winnersPerRound = 20
    /// Winners listed in `state.rounds` in all (newest rounds first).
    public static let winnersInAll = 200
    /// Rounds listed in `state.rounds`; older ones are counted in `state.olderRounds`.
    public static let rounds = 50
    /// A latest `result` longer than this is summarized in `state.result` (`snapshotResult`).
    public static let resultBytes = 4_096

    /// Bytes of listed winners in `state.rounds` in all (long names list fewer rounds).
    public static let winnerBytes = 6_144

    /// The rounds `state.rounds` lists (oldest first) and how many older rounds it leaves out:
    /// the newest rounds while at most `rounds` of them, `winnersInAll` listed winners and
    /// `winnerBytes` of their text fit. The newest round is always listed.
    public static func listed(_ board: ArraySlice<BoardRound>) -> (rounds: ArraySlice<BoardRound>, older: Int) {
        var start = board.endIndex
        var winners = 0
        var bytes = 0
        while start > board.startIndex, board.endIndex - start < rounds {
            let shown = board[start - 1].winners.prefix(winnersPerRound)
            // A name as JSON: its bytes, quotes and a comma (escapes aside).
            let size = shown.reduce(0) { $0 + $1.description.utf8.count + 3 }
            if start < board.endIndex, winners + shown.count > winnersInAll || bytes + size > winnerBytes { break }
            winners += shown.count
            bytes += size
            start -= 1
        }
        return (board[start...], start - board.startIndex)
    }
}

extension BoardRound {
    /// `{"round","prize","prizeIndex","winners","winnerCount","more","voided":[{"winner","reason"}]}`:
    /// the round as `state.rounds` and `GET …/rounds` list it, with its first `limit` current winners.
    public func summaryJSON(limit: Int = BoardSummary.winnersPerRound) -> JSONValue {
        .object([
            "round": .int(Int64(round)),
            "prize": prize.map { .string($0) } ?? .null,
            "prizeIndex": prizeIndex.map { .int(Int64($0)) } ?? .null,
            "winners": .array(winners.prefix(limit).map(\.json)),
            "winnerCount": .int(Int64(winners.count)),
            "more": .bool(winners.count > limit),
            "voided": .array(voided.map { .object(["winner": $0.winner.json, "reason": .string($0.reason)]) }),
        ])
    }
}

extension DrawRecord {
    /// The latest `result` as `state.result` carries it: the `result` message itself when it has at
    /// most `limit` winners and its text at most `bytes` bytes; else a summary of it: its first
    /// `limit` winners with `winnerCount` and `"more":true`, no `contributions`, and its `pool`
    /// without the lists that grow round after round (`removed`, the earlier winners' positions,
    /// becomes `removedCount`; `pastWinners` `pastWinnersCount`). A page rechecks such a round from
    /// the stored record (the export), as it does a round with more than 256 contributions. The
    /// live `result` broadcast keeps every winner (`resultMessage` counts only the long pool lists).
    public func snapshotResult(limit: Int = BoardSummary.winnersPerRound, bytes: Int = BoardSummary.resultBytes) -> JSONValue? {
        guard let message = resultMessage(), case .round(let round) = body, case .object(var members) = message else { return nil }
        guard round.winners.count > limit || message.canonicalBytes.count > bytes else { return message }
        members["winners"] = .array(round.winners.prefix(limit).map(\.json))
        members["winnerCount"] = .int(Int64(round.winners.count))
        members["more"] = .bool(true)
        members["contributions"] = nil
        if case .object(var pool)? = members["pool"] {
            for (name, value) in pool {
                guard let items = value.arrayValue else { continue }
                pool[name] = nil
                pool[name + "Count"] = .int(Int64(items.count))
            }
            members["pool"] = .object(pool)
        }
        return .object(members)
    }
}
