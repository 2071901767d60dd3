import Server
import DrawEngine
import Foundation

/// The CSV export: one row per winner of every round (the whole archive, Clear included),
/// voided winners marked with their reason. RFC 4180 quoting; names that a spreadsheet would
/// read as a formula get a leading `'`.
enum DrawExportCSV {
    static let header = ["session", "round", "prize", "winner", "voided", "reason", "replaces", "at", "record",
                         "commitment", "seed", "hash"]

    static func text(records: [DrawRecord]) -> String {
        var voids: [String: String] = [:] // "round|winner" → reason
        for record in records {
            if case .void(let round, let winner, let reason) = record.body { voids["\(round)|\(winner)", default: reason] = reason }
            // An unclaimed win passed to an alternate (#26) is marked like a void, with its reason.
            if case .pass(let round, let winner, _, let reason) = record.body { voids["\(round)|\(winner)", default: reason] = reason }
        }
        var prizes: [Int: String] = [:]
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var lines = [header.joined(separator: ",")]
        var session = 1
        for record in records {
            switch record.body {
            case .clear:
                session += 1
            case .pass(let round, let winner, let alternate?, _):
                // The alternate's row: it replaces the unclaimed winner; no seed of its own (FAIRNESS.md §15).
                let at = formatter.string(from: Date(timeIntervalSince1970: Double(record.at) / 1000))
                let reason = voids["\(round)|\(alternate)"]
                let fields = [String(session), String(round), prizes[round] ?? "", cell(alternate), reason == nil ? "no" : "yes",
                              reason ?? "", cell(winner), at, String(record.index), "", "", record.hash]
                lines.append(fields.map(quote).joined(separator: ","))
            case .round(let round):
                prizes[round.round] = round.prize ?? ""
                let at = formatter.string(from: Date(timeIntervalSince1970: Double(record.at) / 1000))
                for winner in round.winners {
                    let reason = voids["\(round.round)|\(winner)"]
                    let fields = [String(session), String(round.round), round.prize ?? "", cell(winner),
                                  reason == nil ? "no" : "yes", reason ?? "", round.replaces.map { cell($0.winner) } ?? "",
                                  at, String(record.index), round.commitment, round.seed, record.hash]
                    lines.append(fields.map(quote).joined(separator: ","))
                }
            default:
                break
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private static func cell(_ value: DrawValue) -> String {
        switch value {
        case .number(let n): String(n)
        case .name(let name):
            if let first = name.first, "=+-@\t\r".contains(first) { "'" + name } else { name }
        }
    }

    private static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
