/// Comma-separated header lists (RFC 9110 §5.6.1), read byte by byte: the delimiters and
/// whitespace are ASCII, so UTF-8 positions cut the text where characters would.
enum HTTPTokens {
    /// Splits a comma-separated list, trimming optional whitespace and dropping empty elements.
    static func list(_ value: some StringProtocol) -> [Substring] {
        let text = Substring(value)
        let bytes = text.utf8
        var elements: [Substring] = []
        var start = bytes.startIndex
        var index = start
        while true {
            let atEnd = index == bytes.endIndex
            if atEnd || bytes[index] == UInt8(ascii: ",") {
                let element = trim(text[start..<index])
                if !element.isEmpty { elements.append(element) }
                if atEnd { return elements }
                index = bytes.index(after: index)
                start = index
            } else {
                index = bytes.index(after: index)
            }
        }
    }

    /// `value` cut at every `separator` byte (an ASCII delimiter), empty pieces kept.
    static func split(_ value: Substring, at separator: UInt8) -> [Substring] {
        let bytes = value.utf8
        var pieces: [Substring] = []
        var start = bytes.startIndex
        var index = start
        while index != bytes.endIndex {
            if bytes[index] == separator {
                pieces.append(value[start..<index])
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        pieces.append(value[start..<bytes.endIndex])
        return pieces
    }

    /// `value` with ASCII letters lower-cased and every other byte kept (header names and
    /// parameters are ASCII tokens; Unicode case mapping would let "K" (U+212A) pass for "k").
    static func asciiLowercased(_ value: Substring) -> String {
        guard value.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return String(value) }
        return String(decoding: value.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    static func trim(_ value: some StringProtocol) -> Substring {
        let text = Substring(value)
        let bytes = text.utf8
        var lower = bytes.startIndex, upper = bytes.endIndex
        while lower < upper, isSpace(bytes[lower]) { lower = bytes.index(after: lower) }
        while lower < upper {
            let last = bytes.index(before: upper)
            guard isSpace(bytes[last]) else { break }
            upper = last
        }
        return text[lower..<upper]
    }

    /// Whether any of `values` holds `token` (lowercase ASCII) as a list element, ignoring ASCII case.
    static func contains(_ values: [String], token: String) -> Bool {
        values.contains { value in list(value).contains { equalsIgnoringCase($0, token) } }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    private static func equalsIgnoringCase(_ element: Substring, _ lowercaseToken: String) -> Bool {
        let a = element.utf8, b = lowercaseToken.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in (x >= 0x41 && x <= 0x5A ? x | 0x20 : x) == y }
    }
}
