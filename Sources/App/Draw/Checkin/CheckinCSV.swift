import DrawRoomCore
import Foundation

/// The entrants as CSV for the host (personal data: never public): UTF-8 with a byte order mark
/// (so Excel reads Chinese as Chinese), the extra fields headed as the host named them on the form
/// (工号, not `field1`), `joined_at` as the server's local time, ISO 8601 with its UTC offset.
enum CheckinCSV {
    static func text(_ entries: [CheckinEntry], fields: [CheckinField], timeZone: TimeZone = .current) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = timeZone
        var lines = [(["seq", "id", "name"] + fields.map(\.label) + ["joined_at", "removed"]).map(cell).joined(separator: ",")]
        for entry in entries {
            let joined = formatter.string(from: Date(timeIntervalSince1970: Double(entry.joinedAt) / 1000))
            let row = [String(entry.seq), entry.id, entry.name ?? ""] + fields.map { entry.fields[$0.key] ?? "" }
                + [joined, entry.removedReason ?? ""]
            lines.append(row.map(cell).joined(separator: ","))
        }
        return "\u{FEFF}" + lines.joined(separator: "\r\n") + "\r\n"
    }

    /// RFC 4180 quoting, and a leading `'` before `= + - @` so a spreadsheet never runs a name as a formula.
    static func cell(_ text: String) -> String {
        var value = text
        if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { value = "'" + value }
        if value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return value
    }
}
