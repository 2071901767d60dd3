/// Expression-line text that keeps only its end once it grows long, so a key costs
/// bounded work and memory however long the calculation gets.
///
/// A face shows at most `shownLength` characters: a longer line shows as `…` and its
/// last `shownLength − 1` characters (`shown`). The text keeps between `keptLength` and
/// twice that many characters, more than is shown, so that replacing the last operator
/// never uncovers a dropped part; trimming only when the text doubles keeps appends
/// amortized constant. Lengths count Unicode scalars: every character the engine writes
/// (digits, letters, `×`, `÷`, `√`, `…`) is one scalar.
struct ExpressionText: Sendable, Equatable {
    static let shownLength = 200
    static let keptLength = shownLength + 16

    private(set) var text: String
    /// Unicode scalars in `text`.
    private(set) var count: Int
    /// Whether characters were dropped from the start.
    private(set) var isTruncated = false

    init(_ text: String = "") {
        self.text = text
        count = text.unicodeScalars.count
        trim()
    }

    /// Text whose start was dropped: what follows it must reach `keptLength` characters.
    static var truncatedStart: ExpressionText {
        var start = ExpressionText()
        start.isTruncated = true
        return start
    }

    var isEmpty: Bool { count == 0 && !isTruncated }

    /// The line as a face shows it: the whole text, or `…` and its end.
    var shown: String {
        if !isTruncated, count <= Self.shownLength { return text }
        let scalars = text.unicodeScalars
        let start = scalars.index(scalars.endIndex, offsetBy: -min(count, Self.shownLength - 1))
        return "…" + String(Substring(scalars[start...]))
    }

    mutating func append(_ suffix: String) {
        text += suffix
        count += suffix.unicodeScalars.count
        trim()
    }

    /// Appends `token` after a space (none at the start).
    mutating func append(token: ExpressionText) {
        if token.isTruncated {
            // The token alone reaches further back than anything shown.
            self = token
            return
        }
        append(isEmpty ? token.text : " " + token.text)
    }

    mutating func append(token: String) {
        append(token: ExpressionText(token))
    }

    /// Removes the last token, `token`, and the space before it.
    mutating func removeLast(token: String) {
        precondition(text.hasSuffix(token), "removing a token that is not last")
        let length = min(count, token.unicodeScalars.count + 1)
        text.unicodeScalars.removeLast(length)
        count -= length
    }

    /// `prefix` + text + `suffix`; a dropped start takes the prefix with it.
    mutating func wrap(prefix: String, suffix: String) {
        if !isTruncated {
            text = prefix + text
            count += prefix.unicodeScalars.count
        }
        append(suffix)
    }

    static func + (lhs: ExpressionText, rhs: String) -> ExpressionText {
        var result = lhs
        result.append(rhs)
        return result
    }

    private mutating func trim() {
        guard count > 2 * Self.keptLength else { return }
        let scalars = text.unicodeScalars
        text = String(Substring(scalars[scalars.index(scalars.endIndex, offsetBy: -Self.keptLength)...]))
        count = Self.keptLength
        isTruncated = true
    }
}
