import JSON

/// Rechecks the `pastWinners` of an export's rounds against the exports of the draws they name
/// (docs/FAIRNESS.md §3, "Winners of other draws"): the named record is there with that hash,
/// every entrant left out by name won that draw by then (one left out under another spelling
/// was matched by id, which only the host's spreadsheet can confirm: a note, not a failure),
/// and no winner of that draw by then whose name is on this list was left in the pool.
public enum PastWinnersCheck {
    public struct Finding: Sendable, Equatable {
        public let record: Int
        public let code: String
        public let problem: String?
        public let notes: [String]
    }

    /// `records`: this draw's export; `others`: the linked draws' exports by code. Rounds whose
    /// linked draw is not given are skipped.
    public static func check(records: [JSONValue], others: [String: [JSONValue]]) -> [Finding] {
        var lists = [String: [String]]()
        var findings = [Finding]()
        for (position, json) in records.enumerated() {
            guard let record = try? DrawRecord(json: json) else { continue }
            if case .entrants(let hash, let names, _, _, _) = record.body { lists[hash] = names }
            guard case .round(let round) = record.body, case .list(_, let hash, _, _, let past) = round.pool,
                  let names = lists[hash] else { continue }
            for exclusion in past {
                guard let other = others[exclusion.code] else { continue }
                findings.append(finding(position, exclusion, names: names, other: other))
            }
        }
        return findings
    }

    /// The names of a draw's winners not voided since, up to its record `records` (across Clears),
    /// as DrawRoom publishes them: who its `excludeWinnersOf` left out of a round locked then.
    public static func heldNames(_ other: [JSONValue], records: Int) -> Set<String> {
        var kept = WinCount()
        for json in other.prefix(records) {
            guard let record = try? DrawRecord(json: json) else { continue }
            switch record.body {
            case .round(let round): kept.add(round.won)
            case .void(_, let winner, _): kept.void(winner)
            case .pass(_, let winner, let alternate, _):
                kept.void(winner)
                if let alternate { kept.add([alternate]) }
            default: break
            }
        }
        return Set(kept.held.map(\.description))
    }

    private static func finding(_ position: Int, _ exclusion: PastExclusion, names: [String], other: [JSONValue]) -> Finding {
        func fail(_ problem: String) -> Finding { Finding(record: position, code: exclusion.code, problem: problem, notes: []) }
        guard exclusion.records >= 1, exclusion.records <= other.count,
              other[exclusion.records - 1]["hash"]?.stringValue == exclusion.head else {
            return fail("record \(exclusion.records - 1) of \(exclusion.code) is not \(exclusion.head.prefix(8))…")
        }
        var prev = DrawRecord.genesisPrev
        for (index, json) in other.prefix(exclusion.records).enumerated() {
            // The linked chain must be intact up to the head, or the head proves nothing.
            guard let record = try? DrawRecord(json: json), record.index == index, record.prev == prev,
                  record.computedHash == record.hash else { return fail("the chain of \(exclusion.code) is broken at record \(index)") }
            prev = record.hash
        }
        let keptNames = heldNames(other, records: exclusion.records)
        let left = Set(exclusion.removed)
        var notes = [String]()
        for index in exclusion.removed where index >= 0 && index < Int64(names.count) && !keptNames.contains(names[Int(index)]) {
            notes.append("\"\(names[Int(index)])\" left out as a winner of \(exclusion.code) under another name (matched by id)")
        }
        for (index, name) in names.enumerated() where keptNames.contains(name) && !left.contains(Int64(index)) {
            return fail("\"\(name)\" won \(exclusion.code) but was not left out")
        }
        return Finding(record: position, code: exclusion.code, problem: nil, notes: notes)
    }
}

/// A draw's winners counted per win (docs/FAIRNESS.md §3, "Details a verifier relies on"): a
/// void takes back one win; a person is held while any win of theirs stands.
struct WinCount: Sendable {
    private var wins = [DrawValue: Int]()

    mutating func add(_ winners: [DrawValue]) {
        for winner in winners { wins[winner, default: 0] += 1 }
    }

    mutating func void(_ winner: DrawValue) {
        guard let count = wins[winner] else { return }
        wins[winner] = count > 1 ? count - 1 : nil
    }

    var held: Dictionary<DrawValue, Int>.Keys { wins.keys }
}
