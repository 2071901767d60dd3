/// How an inexact calculator value was computed: exact rationals, π and e combined by the
/// operations the keys apply. The tree is immutable and shared between values; it lets the
/// digits of a result be recomputed at any precision (`CalculatorValue.digits`), each digit
/// proven by interval arithmetic instead of read off the 400-bit approximation.
final class RealExpression: Sendable {
    enum Constant: Sendable { case pi, e }

    enum Binary: Sendable { case add, subtract, multiply, divide, fmod, power }

    enum Unary: Sendable { case negate, log, log10, exp, sin, cos, tan, asin, acos, atan }

    /// Functions with a machine-integer parameter: trigonometry where a full turn is the
    /// parameter (360 for degrees), and the k-th root.
    enum Turned: Sendable { case sin, cos, tan, asin, acos, atan, root }

    enum Node: Sendable {
        case rational(GMPRational)
        case constant(Constant)
        case unary(Unary, RealExpression)
        case turned(Turned, UInt, RealExpression)
        case binary(Binary, RealExpression, RealExpression)
    }

    /// Most nodes one recipe keeps; a value built from more keeps none (its digits beyond the
    /// display cannot be recomputed), so a long chain of keys cannot grow memory or cost without bound.
    static let maximumSize = 1_000

    let node: Node
    /// Nodes in the tree, counting a shared subtree once per use (an upper bound of the work).
    let size: Int

    init?(_ node: Node) {
        switch node {
        case .rational, .constant: size = 1
        case .unary(_, let a), .turned(_, _, let a): size = a.size + 1
        case .binary(_, let a, let b): size = a.size + b.size + 1
        }
        guard size <= Self.maximumSize else { return nil }
        self.node = node
    }

    static let pi = RealExpression(.constant(.pi))!
    static let e = RealExpression(.constant(.e))!
}
