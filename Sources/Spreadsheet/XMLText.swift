/// Text as SpreadsheetML may hold it.
enum XMLText {
    /// The most characters a spreadsheet cell holds (Excel's limit); longer text is cut.
    static let maxCellCharacters = 32_767

    /// `text` escaped for element content or a double-quoted attribute: `& < > "` as entities;
    /// a carriage return as `&#13;` (an XML parser would otherwise turn CR LF into LF); the
    /// characters XML 1.0 forbids (C0 controls other than tab, line feed and carriage return;
    /// U+FFFE, U+FFFF) replaced by U+FFFD, visible instead of silently lost; and `_xHHHH_`,
    /// which spreadsheet readers decode as an escaped character (ECMA-376 ST_Xstring), kept
    /// literal by escaping its underscore as `_x005F_`.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar.value {
            case 0x26: out += "&amp;"
            case 0x3C: out += "&lt;"
            case 0x3E: out += "&gt;"
            case 0x22: out += "&quot;"
            case 0x0D: out += "&#13;"
            case 0x09, 0x0A: out.unicodeScalars.append(scalar)
            case 0x00...0x1F, 0xFFFE, 0xFFFF: out += "\u{FFFD}"
            case 0x5F where looksEscaped(scalars, at: index): out += "_x005F_"
            default: out.unicodeScalars.append(scalar)
            }
            index += 1
        }
        return out
    }

    /// Whether `_xHHHH_` (four hex digits) starts at `index`.
    private static func looksEscaped(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        guard index + 6 < scalars.count, scalars[index + 1] == "x" || scalars[index + 1] == "X", scalars[index + 6] == "_" else {
            return false
        }
        return scalars[(index + 2)...(index + 5)].allSatisfy { $0.properties.isASCIIHexDigit }
    }

    /// At most `maxCellCharacters` UTF-16 units, as Excel counts (whole characters, never half an emoji).
    static func clipped(_ text: String) -> String {
        guard text.utf16.count > maxCellCharacters else { return text }
        var out = ""
        var units = 0
        for character in text {
            units += character.utf16.count
            if units > maxCellCharacters { break }
            out.append(character)
        }
        return out
    }
}
