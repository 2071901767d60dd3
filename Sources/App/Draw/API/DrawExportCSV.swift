import Server
import DrawEngine
import Foundation

/// The CSV export: one row per winner of every round (the whole archive, Clear included),
/// voided winners marked with their reason. UTF-8 with a byte order mark (Excel in Chinese and
/// Western locales reads it as UTF-8 only then), RFC 4180 quoting; names that a spreadsheet would
/// read as a formula get a leading `'`. Times are the server's local time with its UTC offset.
enum DrawExportCSV {
    static let header = ["session", "round", "prize", "winner", "voided", "reason", "replaces", "at", "record",
                         "commitment", "seed", "hash", "name"]

    /// `names`: a check-in pool's public id → name (the `name` column; empty without). `language`:
    /// `zh` says a claim pass's reason in Chinese (the record keeps the fixed English text).
    static func text(records: [DrawRecord], names: [String: String] = [:], language: String = "en",
                     timeZone: TimeZone = .current) -> String {
        var voids: [String: String] = [:] // "round|winner" → reason
        for record in records {
            if case .void(let round, let winner, let reason) = record.body { voids["\(round)|\(winner)", default: reason] = reason }
            // An unclaimed win passed to an alternate (#26) is marked like a void, with its reason.
            if case .pass(let round, let winner, _, let reason) = record.body { voids["\(round)|\(winner)", default: reason] = reason }
        }
        var prizes: [Int: String] = [:]
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = timeZone
        let name: (DrawValue) -> String = { value in
            if case .name(let id) = value, let name = names[id] { cell(.name(name)) } else { "" }
        }
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
                              said(reason, language), cell(winner), at, String(record.index), "", "", record.hash, name(alternate)]
                lines.append(fields.map(quote).joined(separator: ","))
            case .round(let round):
                prizes[round.round] = round.prize ?? ""
                let at = formatter.string(from: Date(timeIntervalSince1970: Double(record.at) / 1000))
                for winner in round.winners {
                    let reason = voids["\(round.round)|\(winner)"]
                    let fields = [String(session), String(round.round), round.prize ?? "", cell(winner),
                                  reason == nil ? "no" : "yes", said(reason, language), round.replaces.map { cell($0.winner) } ?? "",
                                  at, String(record.index), round.commitment, round.seed, record.hash, name(winner)]
                    lines.append(fields.map(quote).joined(separator: ","))
                }
            default:
                break
            }
        }
        return "\u{FEFF}" + lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A reason as the download's language says it: a claim pass's fixed "not claimed in N s"
    /// in Chinese for `zh`; a host's own void reason as typed.
    static func said(_ reason: String?, _ language: String) -> String {
        guard let reason else { return "" }
        guard language.lowercased().hasPrefix("zh"), reason.hasPrefix("not claimed in "), reason.hasSuffix(" s"),
              let seconds = Int(reason.dropFirst("not claimed in ".count).dropLast(2)) else { return reason }
        return "\(seconds) 秒内未领取"
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
