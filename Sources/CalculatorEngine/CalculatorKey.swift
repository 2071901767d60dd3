/// Every key the calculator understands; one `press` per key.
public enum CalculatorKey: Hashable, Sendable {
    case digit(Int)
    case point
    case negate
    case add, subtract, multiply, divide
    case equals
    /// Clears everything except memory and history (and always recovers from an error).
    case clear
    /// Clears the current entry to 0; keeps the pending expression.
    case clearEntry
    case backspace
    case percent
    case sqrt, square, reciprocal
    case memoryClear, memoryRecall, memoryStore, memoryAdd, memorySubtract
    case openParen, closeParen
    /// xʸ, right-associative in scientific mode.
    case power
    /// Starts the exponent of the entry (`1.5 EE 3` is 1500).
    case exponentEntry
    /// Remainder with the sign of the dividend.
    case mod
    case sin, cos, tan, asin, acos, atan
    case ln, log, exp, pow10
    case cube, cbrt
    /// ʸ√x as a binary operator: `8 root 3 =` → 2 (same precedence as `^`).
    case root
    case factorial
    case abs
    case pi, e
    /// Makes history entry `n` (0-based, oldest first) the displayed value.
    case recallHistory(Int)
}
