import Foundation
import HTTPCore
import Posix
import Server
import Spreadsheet

/// One download as typed rows (winners, entrants, the audit log), written as CSV or as a
/// one-sheet `.xlsx` from the same rows, so the two always hold the same cells.
struct ExportTable: Sendable {
    var header: [String]
    var rows: [[SheetCell]]
    /// The zone the CSV's times are written in (the server's local time, with its offset).
    var timeZone: TimeZone
    /// Whether the CSV's times carry milliseconds.
    var fractionalSeconds: Bool

    /// A moment as a cell: its wall-clock time in `timeZone`.
    static func time(millis: Int64, in timeZone: TimeZone) -> SheetCell {
        let date = Date(timeIntervalSince1970: Double(millis) / 1000)
        return .time(millis: millis, utcOffsetSeconds: timeZone.secondsFromGMT(for: date))
    }

    /// UTF-8 with a byte order mark (Excel in Chinese and Western locales reads it as UTF-8 only
    /// then), RFC 4180 quoting, CRLF line ends; a text cell a spreadsheet would read as a
    /// formula (`= + - @`, tab, CR first) gets a leading `'`; times ISO 8601 with the UTC offset.
    var csv: String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = fractionalSeconds ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        formatter.timeZone = timeZone
        var lines = [header.map { Self.quote(Self.guarded($0)) }.joined(separator: ",")]
        lines.reserveCapacity(rows.count + 1)
        for row in rows {
            lines.append(row.map { cell -> String in
                switch cell {
                case .empty: ""
                case .text(let text): Self.quote(Self.guarded(text))
                case .integer(let value): String(value)
                case .number(let value): value.isFinite ? String(value) : ""
                case .time(let millis, _): formatter.string(from: Date(timeIntervalSince1970: Double(millis) / 1000))
                }
            }.joined(separator: ","))
        }
        return "\u{FEFF}" + lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The `.xlsx` bytes (nil only if zlib fails or the sheet passes ZIP's 4 GiB).
    func xlsx(sheetName: String) -> [UInt8]? {
        try? XLSXWriter.workbook(sheetName: sheetName, header: header, rows: rows)
    }

    /// The download: `format` is `csv` or `xlsx`; `fileName` without its extension.
    func response(format: String, fileName: String, sheetName: String) -> HTTPResponse {
        let body: [UInt8]
        let type: String
        if format == "xlsx" {
            guard let bytes = xlsx(sheetName: sheetName) else { return APIError.response("storage_failed") }
            (body, type) = (bytes, XLSXWriter.contentType)
        } else {
            (body, type) = (Array(csv.utf8), "text/csv; charset=utf-8")
        }
        var response = HTTPResponse(status: .ok, headers: ["Content-Type": type], body: body)
        response.headers.add(name: "Content-Disposition", value: "attachment; filename=\"\(fileName).\(format)\"")
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    /// Builds the table and answers with it on a thread of its own (`DetachedThread`): 100,000
    /// entrants take a few hundred milliseconds to lay out and compress, which no event loop
    /// should wait for. `503 busy` when the system refuses the thread.
    static func respondOffLoop(format: String, fileName: String, sheetName: String, responder: Responder,
                               _ build: @escaping @Sendable () -> ExportTable) {
        if !DetachedThread.start({ responder.respond(build().response(format: format, fileName: fileName, sheetName: sheetName)) }) {
            responder.respond(APIError.response("busy"))
        }
    }

    /// A leading `'` before `= + - @` (and tab, CR), so a spreadsheet never runs a cell as a formula.
    static func guarded(_ text: String) -> String {
        if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { "'" + text } else { text }
    }

    static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
