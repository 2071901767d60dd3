import DrawRoomCore
import Foundation
import JSON
import Spreadsheet

/// The entrants download for the host (personal data: never public), `entrants.csv` and
/// `entrants.xlsx` from the same `ExportTable`: the extra fields headed as the host named them on
/// the form (工号, not `field1`), `joined_at` as the server's local time (the CSV: ISO 8601 with
/// its UTC offset; the `.xlsx`: a date).
enum CheckinCSV {
    static func text(_ entries: [CheckinEntry], fields: [CheckinField], timeZone: TimeZone = .current) -> String {
        table(entries, fields: fields, timeZone: timeZone).csv
    }

    static func table(_ entries: [CheckinEntry], fields: [CheckinField], timeZone: TimeZone = .current) -> ExportTable {
        let header = ["seq", "id", "name"] + fields.map(\.label) + ["joined_at", "removed"]
        let rows = entries.map { entry -> [SheetCell] in
            [.integer(Int64(entry.seq)), .text(entry.id), .text(entry.name ?? "")] + fields.map { .text(entry.fields[$0.key] ?? "") }
                // Whole seconds, as the CSV has always written `joined_at`: both downloads hold the same time.
                + [ExportTable.time(millis: entry.joinedAt / 1000 * 1000, in: timeZone), .text(entry.removedReason ?? "")]
        }
        return ExportTable(header: header, rows: rows, timeZone: timeZone, fractionalSeconds: false)
    }

    /// The same table from the host's export of the book (`CheckinQuery.export`: `settings` and
    /// every entry, in join order, as `CheckinBook.exportAnswer` writes them): the `.xlsx` reads
    /// this answer, which both modes give, rather than the CSV text.
    static func table(export: JSONValue, timeZone: TimeZone = .current) -> ExportTable {
        let fields = (export["settings"]?["fields"]?.arrayValue ?? []).compactMap { field -> CheckinField? in
            guard let key = field["key"]?.stringValue, let label = field["label"]?.stringValue else { return nil }
            return CheckinField(key: key, label: label, required: false, unique: false, maxLength: CheckinSettings.maxValueLength)
        }
        let entries = (export["entrants"]?.arrayValue ?? []).compactMap { entry -> CheckinEntry? in
            guard let id = entry["id"]?.stringValue, let seq = entry["seq"]?.intValue, let joined = entry["joinedAt"]?.intValue else { return nil }
            var values: [String: String] = [:]
            for (key, value) in entry["fields"]?.objectValue ?? [:] { values[key] = value.stringValue }
            return CheckinEntry(id: id, seq: Int(seq), name: entry["name"]?.stringValue, fields: values, joinedAt: joined,
                                removedReason: entry["removed"]?.stringValue)
        }
        return table(entries, fields: fields, timeZone: timeZone)
    }

    /// RFC 4180 quoting, and a leading `'` before `= + - @` so a spreadsheet never runs a name as a formula.
    static func cell(_ text: String) -> String {
        ExportTable.quote(ExportTable.guarded(text))
    }
}
