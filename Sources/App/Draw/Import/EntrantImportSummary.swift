import DrawRoomCore
import JSON
import Server
import DrawEngine

/// The import preview for the command line (`tombola import FILE`): the same parser and checks
/// as the REST endpoint, summarised as text, with the time the parse took.
public enum EntrantImportSummary {
    /// The lines to print and whether the import was accepted as a whole.
    public static func run(_ bytes: [UInt8], merge: Bool) -> (lines: [String], ok: Bool) {
        let clock = ContinuousClock()
        let started = clock.now
        let preview: EntrantImport.Preview
        do {
            preview = try EntrantImport.preview(of: bytes, duplicates: merge ? .merge : .reject)
        } catch {
            return (["refused: \(error.code)" + (error.line.map { " (line \($0))" } ?? "") + ": "
                     + DrawErrorText.message(for: error.code)], false)
        }
        let elapsed = clock.now - started
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        var lines = [
            "encoding: \(preview.encoding.rawValue), separator: \(preview.separator), header: \(preview.header ? "yes" : "no"), columns: "
                + preview.columns.sorted { $0.value < $1.value }.map { "\($0.key)=\($0.value + 1)" }.joined(separator: " "),
            "entrants: \(preview.entrants.count), tickets: \(preview.tickets), rejected: \(preview.rejectedCount), "
                + "duplicates: \(preview.duplicates.count)",
        ]
        for entrant in preview.entrants.prefix(EntrantImportAPI.firstRows) {
            lines.append("  \(entrant.name)\t\(entrant.tickets)\t\(entrant.group ?? "")\t\(entrant.id ?? "")")
        }
        for rejected in preview.rejected { lines.append("line \(rejected.line): \(rejected.reason)") }
        lines.append("parsed \(bytes.count) bytes in \(String(Int(ms.rounded()))) ms")
        return (lines, true)
    }
}
