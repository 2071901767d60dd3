/// The binary operators and how they read in the expression line.
enum BinaryOperator: Sendable, Equatable {
    case add, subtract, multiply, divide, power, mod, root

    /// Expression-line symbols: `+ - × ÷ ^ mod root`.
    var symbol: String {
        switch self {
        case .add: "+"
        case .subtract: "-"
        case .multiply: "×"
        case .divide: "÷"
        case .power: "^"
        case .mod: "mod"
        case .root: "root"
        }
    }

    /// Scientific precedence: `+ -` < `× ÷ mod` < `^ root`.
    var precedence: Int {
        switch self {
        case .add, .subtract: 1
        case .multiply, .divide, .mod: 2
        case .power, .root: 3
        }
    }

    /// `^` and `root` group from the right (`2 ^ 3 ^ 2` = 2^9).
    var isRightAssociative: Bool { precedence == 3 }

    func apply(_ lhs: CalcNumber, _ rhs: CalcNumber) throws(CalculatorError) -> CalcNumber {
        switch self {
        case .add: try lhs + rhs
        case .subtract: try lhs - rhs
        case .multiply: try lhs * rhs
        case .divide: try lhs / rhs
        case .power: try lhs.raised(to: rhs)
        case .mod: try lhs.remainder(dividingBy: rhs)
        case .root: try lhs.root(rhs)
        }
    }
}

/// The keys that act at once on the displayed value.
enum UnaryFunction: Sendable, Equatable {
    case negate, sqrt, square, reciprocal, cube, cbrt, factorial, abs
    case sin, cos, tan, asin, acos, atan
    case ln, log, exp, pow10

    /// How an applied function reads in the expression line, around its operand's text.
    func expression(_ operand: ExpressionText) -> ExpressionText {
        let name: String
        switch self {
        case .negate: name = "negate"
        case .sqrt: name = "√"
        case .square: name = "sqr"
        case .reciprocal: name = "1/"
        case .cube: name = "cube"
        case .cbrt: name = "cbrt"
        case .factorial: name = "fact"
        case .abs: name = "abs"
        case .sin: name = "sin"
        case .cos: name = "cos"
        case .tan: name = "tan"
        case .asin: name = "asin"
        case .acos: name = "acos"
        case .atan: name = "atan"
        case .ln: name = "ln"
        case .log: name = "log"
        case .exp: name = "e^"
        case .pow10: name = "10^"
        }
        var text = operand
        text.wrap(prefix: name + "(", suffix: ")")
        return text
    }

    func apply(_ x: CalcNumber, angle: AngleUnit) throws(CalculatorError) -> CalcNumber {
        switch self {
        case .negate: x.negated()
        case .sqrt: try x.squareRoot()
        case .square: try x * x
        case .reciprocal: try x.reciprocal()
        case .cube: try x.raised(to: CalcNumber(3))
        case .cbrt: try x.cubeRoot()
        case .factorial: try x.factorial()
        case .abs: x.magnitude()
        case .sin: try x.trigonometric(.sin, angle: angle)
        case .cos: try x.trigonometric(.cos, angle: angle)
        case .tan: try x.trigonometric(.tan, angle: angle)
        case .asin: try x.inverseTrigonometric(.asin, angle: angle)
        case .acos: try x.inverseTrigonometric(.acos, angle: angle)
        case .atan: try x.inverseTrigonometric(.atan, angle: angle)
        case .ln: try x.naturalLogarithm()
        case .log: try x.commonLogarithm()
        case .exp: try x.exponential()
        case .pow10: try x.powerOfTen()
        }
    }
}
