/// Small helpers for the HTTP header syntax the handshake needs (RFC 9110 §5.6).
enum HTTPTokens {
    /// Splits a comma-separated list, trimming optional whitespace and dropping empty elements.
    static func list(_ value: some StringProtocol) -> [Substring] {
        value.split(separator: ",", omittingEmptySubsequences: true)
            .map { trim($0) }
            .filter { !$0.isEmpty }
    }

    static func trim(_ value: some StringProtocol) -> Substring {
        let text = Substring(value)
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = text.lastIndex(where: { !isSpace($0) })!
        return text[first...last]
    }

    /// Whether any of `values` holds `token` as a list element, compared case-insensitively.
    static func contains(_ values: [String], token: String) -> Bool {
        values.contains { value in list(value).contains { $0.lowercased() == token } }
    }
}
