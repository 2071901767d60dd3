/// A calculator session: keys in, display out.
///
///     var calc = Calculator()
///     _ = calc.press(.digit(7))
///     let display = calc.press(.equals)
///
/// Basic mode executes immediately (each operator applies the pending one); scientific
/// mode honours precedence and right-associative `^`. Both share one machine: a stack of
/// pending operators and operands that basic mode simply reduces at every operator.
/// Where SPEC is silent the behaviour follows Windows Calculator:
/// - `(` right after an operand multiplies (`2 ( 3 )` is 2 × 3), and so does a number
///   typed right after `)` (`( 8 ) 2` is 8 × 2); an operator right after `(` takes 0
///   as its left operand.
/// - `)` without an open `(` does nothing; `=` closes every open `(`.
/// - A function key after an operator acts on the displayed value (`9 + sqrt =` → 12).
/// - `=` with nothing pending repeats the last binary operation with its right operand,
///   also on a newly typed number (`2 + 3 = 7 =` → 10).
/// - `EE` after a result starts an entry from the displayed value when it is plain.
/// - `CE` clears the entry to 0 and keeps the pending expression; on an error it clears all.
/// - `recall:<n>` and `MR` put a value in place of the entry, like typing it.
/// - Switching mode drops the pending expression and keeps the displayed value.
/// - While an error shows the display is empty and the expression line too.
public struct Calculator: Sendable {
    public private(set) var mode: CalculatorMode = .basic
    public private(set) var angle: AngleUnit = .radians

    /// How many calculations the history tape keeps.
    public static let historyLimit = 50
    /// Deepest nesting of `(`; further `(` are ignored.
    public static let parenthesisLimit = 25

    enum Pending: Sendable {
        case binary(BinaryOperator)
        case group
    }

    var entry: Entry?
    var current: CalcNumber = .zero
    /// How `current` reads in the expression when it came from a function, `%` or a group.
    var operandText: ExpressionText?
    /// Whether an operand was given since the last operator or `(`.
    var operandEntered = false
    /// Whether that operand is a closed `( … )` group (a digit after it multiplies).
    var operandIsGroup = false

    var values: [CalcNumber] = []
    var pending: [Pending] = []
    var line = ExpressionLine()

    var lastReduction: (BinaryOperator, CalcNumber)?
    var repeatOperation: (BinaryOperator, CalcNumber)?
    /// The finished expression while the result of `=` is shown.
    var finishedExpression: String?

    var error: CalculatorError?
    var memory: CalcNumber?
    var history: [(entry: CalculatorHistoryEntry, value: CalcNumber)] = []

    public init() {}

    public var display: CalculatorDisplay {
        let expression: String
        if error != nil {
            expression = ""
        } else if let finished = finishedExpression {
            expression = finished
        } else {
            expression = line.text(followedBy: operandText).shown
        }
        return CalculatorDisplay(
            display: error != nil ? "" : entry?.text ?? DecimalFormatter.string(for: current),
            expression: expression,
            error: error,
            memory: memory != nil,
            mode: mode,
            angle: angle,
            history: history.map(\.entry))
    }

    public mutating func setMode(_ mode: CalculatorMode) -> CalculatorDisplay {
        if mode != self.mode {
            self.mode = mode
            values = []
            pending = []
            line = ExpressionLine()
            lastReduction = nil
            operandText = nil
            operandEntered = false
            operandIsGroup = false
        }
        return display
    }

    public mutating func setAngle(_ angle: AngleUnit) -> CalculatorDisplay {
        self.angle = angle
        return display
    }

    @discardableResult
    public mutating func press(_ key: CalculatorKey) -> CalculatorDisplay {
        if error != nil {
            switch key {
            case .digit, .point: clearAll()
            case .clear, .clearEntry: clearAll()
            default: break
            }
            if error != nil { return display }
        }
        do {
            try handle(key)
        } catch {
            enter(error)
        }
        return display
    }

    private mutating func handle(_ key: CalculatorKey) throws(CalculatorError) {
        switch key {
        case .digit(let d):
            guard (0...9).contains(d) else { return }
            try startTyping()
            entry?.append(digit: d)
        case .point:
            try startTyping()
            entry?.appendPoint()
        case .exponentEntry:
            if entry == nil {
                let shown = DecimalFormatter.string(for: current)
                try startTyping()
                if let plain = Entry(plain: shown), !current.isZero { entry = plain } else { entry?.integerDigits = "1" }
            }
            entry?.startExponent()
        case .negate:
            if entry != nil {
                entry?.toggleSign()
            } else if !current.isZero {
                try apply(.negate)
            } else if showsUntypedZero {
                // A zero nobody computed (start, `C`, `CE`, `MR`): begin a negative entry.
                try startTyping()
                entry?.toggleSign()
            }
        case .backspace:
            entry?.removeLast()
        case .clear:
            clearAll()
        case .clearEntry:
            if finishedExpression != nil { startNewCalculation() }
            entry = nil
            current = .zero
            operandText = nil
            operandEntered = true
            operandIsGroup = false
        case .add: try binary(.add)
        case .subtract: try binary(.subtract)
        case .multiply: try binary(.multiply)
        case .divide: try binary(.divide)
        case .power: try binary(.power)
        case .mod: try binary(.mod)
        case .root: try binary(.root)
        case .equals: try equals()
        case .percent: try percent()
        case .openParen: try openGroup()
        case .closeParen: try closeGroup()
        case .sqrt: try apply(.sqrt)
        case .square: try apply(.square)
        case .reciprocal: try apply(.reciprocal)
        case .cube: try apply(.cube)
        case .cbrt: try apply(.cbrt)
        case .factorial: try apply(.factorial)
        case .abs: try apply(.abs)
        case .sin: try apply(.sin)
        case .cos: try apply(.cos)
        case .tan: try apply(.tan)
        case .asin: try apply(.asin)
        case .acos: try apply(.acos)
        case .atan: try apply(.atan)
        case .ln: try apply(.ln)
        case .log: try apply(.log)
        case .exp: try apply(.exp)
        case .pow10: try apply(.pow10)
        case .pi: setOperand(.pi)
        case .e: setOperand(.e)
        case .memoryClear:
            memory = nil
        case .memoryRecall:
            if let memory { setOperand(memory) }
        case .memoryStore:
            memory = try commitOperand()
        case .memoryAdd:
            memory = try (memory ?? .zero) + commitOperand()
        case .memorySubtract:
            memory = try (memory ?? .zero) - commitOperand()
        case .recallHistory(let index):
            if history.indices.contains(index) { setOperand(history[index].value) }
        }
    }

    // MARK: Operands

    /// Begins a new entry unless one is being typed; after `=` this starts a new
    /// calculation, and right after a closed group it multiplies (`( 8 ) 2` is 8 × 2).
    private mutating func startTyping() throws(CalculatorError) {
        guard entry == nil else { return }
        if finishedExpression != nil {
            startNewCalculation()
        } else if operandEntered, operandIsGroup {
            try binary(.multiply)
        }
        entry = Entry()
        operandText = nil
        operandEntered = true
        operandIsGroup = false
    }

    /// Whether the display shows a zero that is no result: the start, after `C` or `CE`, or a
    /// zero put in place of the entry (`MR`, `recall:<n>`). `neg` there starts typing `-0`;
    /// on a computed zero (`=`, an operator, a function, `%`) it does nothing.
    private var showsUntypedZero: Bool {
        entry == nil && current.isZero && operandText == nil && finishedExpression == nil
            && (operandEntered || (values.isEmpty && pending.isEmpty))
    }

    mutating func setOperand(_ value: CalcNumber, text: ExpressionText? = nil) {
        if finishedExpression != nil { startNewCalculation() }
        entry = nil
        current = value
        operandText = text
        operandEntered = true
        operandIsGroup = false
    }

    /// The operand as a value, ending the entry (a later digit starts a new number).
    mutating func commitOperand() throws(CalculatorError) -> CalcNumber {
        if let typed = entry {
            current = try typed.value()
            entry = nil
        }
        return current
    }

    private mutating func apply(_ function: UnaryFunction) throws(CalculatorError) {
        let x = try commitOperand()
        let text = operandText ?? ExpressionText(DecimalFormatter.string(for: x))
        let result = try function.apply(x, angle: angle)
        setOperand(result, text: function.expression(text))
    }

    /// `%`: after `x +` or `x -`, y becomes x·y/100; otherwise y/100.
    private mutating func percent() throws(CalculatorError) {
        let y = try commitOperand()
        let hundred = CalcNumber(100)
        let result: CalcNumber
        if case .binary(let op) = pending.last, op == .add || op == .subtract, let x = values.last {
            result = try x * y / hundred
        } else {
            result = try y / hundred
        }
        setOperand(result, text: ExpressionText(DecimalFormatter.string(for: result)))
    }

    // MARK: Errors and clearing

    private mutating func enter(_ error: CalculatorError) {
        clearAll()
        self.error = error
    }

    mutating func clearAll() {
        operandIsGroup = false
        error = nil
        entry = nil
        current = .zero
        operandText = nil
        operandEntered = false
        values = []
        pending = []
        line = ExpressionLine()
        lastReduction = nil
        repeatOperation = nil
        finishedExpression = nil
    }
}
