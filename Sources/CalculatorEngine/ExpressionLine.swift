/// The pending part of the expression line (`12 + ( 7 ×`): one text per open `(` level,
/// outermost first, each inner one starting with its `(`, so that `)` turns the innermost
/// level into an operand's text (`( 7 × 2 )`). Every change touches only the innermost
/// level, and every text is bounded (`ExpressionText`), so each key costs bounded work.
struct ExpressionLine: Sendable {
    private var levels = [ExpressionText()]

    /// Open `(` levels.
    var depth: Int { levels.count - 1 }

    var isEmpty: Bool { depth == 0 && levels[0].isEmpty }

    /// Characters kept over all levels: what the line costs in memory.
    var storedLength: Int { levels.reduce(0) { $0 + $1.count } }

    mutating func append(_ token: ExpressionText) {
        levels[levels.count - 1].append(token: token)
    }

    mutating func append(_ token: String) {
        levels[levels.count - 1].append(token: token)
    }

    /// Replaces the last token, the operator `old`, with `new`.
    mutating func replaceLast(_ old: String, with new: String) {
        levels[levels.count - 1].removeLast(token: old)
        levels[levels.count - 1].append(token: new)
    }

    mutating func openGroup() {
        levels.append(ExpressionText("("))
    }

    /// Ends the innermost group and returns its text, `( … )`.
    mutating func closeGroup() -> ExpressionText {
        var group = levels.removeLast()
        group.append(token: ")")
        return group
    }

    /// The line followed by `operand`, as far back as a face can show it.
    func text(followedBy operand: ExpressionText?) -> ExpressionText {
        if depth == 0, operand == nil { return levels[0] }
        var pieces = levels.filter { !$0.isEmpty }
        if let operand, !operand.isEmpty { pieces.append(operand) }
        var first = pieces.count
        var length = 0
        while first > 0, length < ExpressionText.keptLength, !(first < pieces.count && pieces[first].isTruncated) {
            first -= 1
            length += pieces[first].count + 1
        }
        var result = first > 0 ? ExpressionText.truncatedStart : ExpressionText()
        for piece in pieces[first...] { result.append(token: piece) }
        return result
    }
}
