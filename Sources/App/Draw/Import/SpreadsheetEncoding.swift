/// The character encoding of an imported spreadsheet, as offices save them: UTF-8 (with or
/// without BOM), "Unicode text" from Excel on Windows (UTF-16LE with BOM; BE with its BOM too),
/// and CSV from Chinese Excel (GB18030, no BOM: the fallback for text that is not UTF-8).
/// Everything else is decoded to UTF-8 by glibc's iconv before the parser sees it.
enum SpreadsheetEncoding: String, Sendable {
    case utf8 = "utf-8"
    case utf16LE = "utf-16le"
    case utf16BE = "utf-16be"
    case gb18030 = "gb18030"

    /// The encoding its byte order mark names, and the BOM's length; nil without one.
    static func byteOrderMark(of bytes: [UInt8]) -> (encoding: SpreadsheetEncoding, length: Int)? {
        if bytes.starts(with: [0xef, 0xbb, 0xbf]) { return (.utf8, 3) }
        if bytes.starts(with: [0xff, 0xfe]) { return (.utf16LE, 2) }
        if bytes.starts(with: [0xfe, 0xff]) { return (.utf16BE, 2) }
        return nil
    }

    /// Most UTF-8 bytes one input byte becomes (UTF-16: 2 → 3 or 4 → 4; GB18030: 2 → 3, 4 → 4).
    static let maxGrowth = 2

    /// `bytes` (after any BOM) as UTF-8. An invalid or truncated sequence refuses the import
    /// with `import_bad_encoding` and the line it is on.
    func utf8(_ bytes: ArraySlice<UInt8>) throws(ImportError) -> [UInt8] {
        guard self != .utf8 else { return Array(bytes) }
        guard let converter = TextConverter(from: rawValue.uppercased(), to: "UTF-8") else {
            // glibc always has these; a system without its gconv modules refuses rather than guesses.
            throw ImportError(kind: .badEncoding, line: nil)
        }
        do {
            return try converter.convert(Array(bytes), growth: Self.maxGrowth)
        } catch {
            throw ImportError(kind: .badEncoding, line: Self.lineCount(error.converted))
        }
    }

    /// The 1-based line the text after `bytes` starts on (CRLF, LF or CR end a line).
    static func lineCount(_ bytes: [UInt8]) -> Int {
        var lines = 1
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == 0x0d || (byte == 0x0a && previous != 0x0d) { lines += 1 }
            previous = byte
        }
        return lines
    }
}
