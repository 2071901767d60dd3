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
/// - `(` starts a fresh operand: a number typed just before it is dropped.
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

    private var entry: Entry?
    private var current: CalcNumber = .zero
    /// How `current` reads in the expression when it came from a function, `%` or a group.
    private var operandText: String?
    /// Whether an operand was given since the last operator or `(`.
    private var operandEntered = false

    private var values: [CalcNumber] = []
    private var pending: [Pending] = []
    private var tokens: [String] = []
    private var groupStarts: [Int] = []

    private var lastReduction: (BinaryOperator, CalcNumber)?
    private var repeatOperation: (BinaryOperator, CalcNumber)?
    /// The finished expression while the result of `=` is shown.
    private var finishedExpression: String?

    private var error: CalculatorError?
    private var memory: CalcNumber?
    private var history: [(entry: CalculatorHistoryEntry, value: CalcNumber)] = []

    public init() {}

    public var display: CalculatorDisplay {
        let expression: String
        if error != nil {
            expression = ""
        } else if let finished = finishedExpression {
            expression = finished
        } else {
            expression = (tokens + [operandText].compactMap { $0 }).joined(separator: " ")
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
            tokens = []
            groupStarts = []
            lastReduction = nil
            operandText = nil
            operandEntered = true
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
            startTyping()
            entry?.append(digit: d)
        case .point:
            startTyping()
            entry?.appendPoint()
        case .exponentEntry:
            if entry == nil {
                let shown = DecimalFormatter.string(for: current)
                startTyping()
                if let plain = Entry(plain: shown), !current.isZero { entry = plain } else { entry?.integerDigits = "1" }
            }
            entry?.startExponent()
        case .negate:
            if entry != nil {
                entry?.toggleSign()
            } else if !current.isZero {
                try apply(.negate)
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
        case .add: try binary(.add)
        case .subtract: try binary(.subtract)
        case .multiply: try binary(.multiply)
        case .divide: try binary(.divide)
        case .power: try binary(.power)
        case .mod: try binary(.mod)
        case .root: try binary(.root)
        case .equals: try equals()
        case .percent: try percent()
        case .openParen: openGroup()
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

    /// Begins a new entry unless one is being typed; after `=` this starts a new calculation.
    private mutating func startTyping() {
        guard entry == nil else { return }
        if finishedExpression != nil { startNewCalculation() }
        entry = Entry()
        operandText = nil
        operandEntered = true
    }

    private mutating func setOperand(_ value: CalcNumber, text: String? = nil) {
        if finishedExpression != nil { startNewCalculation() }
        entry = nil
        current = value
        operandText = text
        operandEntered = true
    }

    /// The operand as a value, ending the entry (a later digit starts a new number).
    private mutating func commitOperand() throws(CalculatorError) -> CalcNumber {
        if let typed = entry {
            current = try typed.value()
            entry = nil
        }
        return current
    }

    private mutating func apply(_ function: UnaryFunction) throws(CalculatorError) {
        let x = try commitOperand()
        let text = operandText ?? DecimalFormatter.string(for: x)
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
        setOperand(result, text: DecimalFormatter.string(for: result))
    }

    // MARK: Expression

    private mutating func startNewCalculation() {
        finishedExpression = nil
        tokens = []
        lastReduction = nil
    }

    private mutating func binary(_ op: BinaryOperator) throws(CalculatorError) {
        if finishedExpression != nil { startNewCalculation() }
        if !operandEntered, case .binary = pending.last {
            pending[pending.count - 1] = .binary(op)
            tokens[tokens.count - 1] = op.symbol
            return
        }
        try pushOperand()
        let mode = mode
        try reduce { top in
            mode == .basic || top.precedence > op.precedence
                || (top.precedence == op.precedence && !op.isRightAssociative)
        }
        pending.append(.binary(op))
        tokens.append(op.symbol)
        current = values[values.count - 1]
        operandEntered = false
    }

    private mutating func pushOperand() throws(CalculatorError) {
        let value = try commitOperand()
        tokens.append(operandText ?? DecimalFormatter.string(for: value))
        operandText = nil
        values.append(value)
    }

    /// Applies pending binary operators from the top while `condition` holds, stopping at `(`.
    private mutating func reduce(while condition: (BinaryOperator) -> Bool) throws(CalculatorError) {
        while case .binary(let op) = pending.last, condition(op) {
            pending.removeLast()
            let rhs = values.removeLast()
            let lhs = values.removeLast()
            values.append(try op.apply(lhs, rhs))
            lastReduction = (op, rhs)
        }
    }

    private mutating func openGroup() {
        guard groupStarts.count < Self.parenthesisLimit else { return }
        if finishedExpression != nil { startNewCalculation() }
        entry = nil
        operandText = nil
        operandEntered = false
        groupStarts.append(tokens.count)
        tokens.append("(")
        pending.append(.group)
    }

    private mutating func closeGroup() throws(CalculatorError) {
        guard let start = groupStarts.last else { return }
        try pushOperand()
        try reduce { _ in true }
        pending.removeLast()
        groupStarts.removeLast()
        let text = (tokens[start...] + [")"]).joined(separator: " ")
        tokens.removeSubrange(start...)
        current = values.removeLast()
        operandText = text
        operandEntered = true
    }

    private mutating func equals() throws(CalculatorError) {
        let nothingPending = pending.isEmpty && tokens.isEmpty && lastReduction == nil
        if finishedExpression != nil || nothingPending {
            let lhs = try commitOperand()
            let text = operandText ?? DecimalFormatter.string(for: lhs)
            if let (op, rhs) = repeatOperation {
                current = try op.apply(lhs, rhs)
                finish(text + " " + op.symbol + " " + DecimalFormatter.string(for: rhs) + " =")
            } else if operandText != nil {
                finish(text + " =")
            } else {
                startNewCalculation()
                finishedExpression = text + " ="
            }
            return
        }
        if !pending.isEmpty {
            try pushOperand()
            while let top = pending.last {
                switch top {
                case .group:
                    pending.removeLast()
                    groupStarts.removeLast()
                    tokens.append(")")
                case .binary:
                    try reduce { _ in true }
                }
            }
            current = values.removeLast()
        } else {
            current = try commitOperand()
            if let text = operandText { tokens.append(text) }
        }
        repeatOperation = lastReduction
        finish(tokens.joined(separator: " ") + " =")
    }

    /// Shows `current` as the result of `expression` and writes it to the history tape.
    private mutating func finish(_ expression: String) {
        entry = nil
        values = []
        pending = []
        tokens = []
        groupStarts = []
        lastReduction = nil
        operandText = nil
        operandEntered = true
        finishedExpression = expression
        history.append((CalculatorHistoryEntry(expression: expression, result: DecimalFormatter.string(for: current)), current))
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
    }

    // MARK: Errors and clearing

    private mutating func enter(_ error: CalculatorError) {
        clearAll()
        self.error = error
    }

    private mutating func clearAll() {
        error = nil
        entry = nil
        current = .zero
        operandText = nil
        operandEntered = false
        values = []
        pending = []
        tokens = []
        groupStarts = []
        lastReduction = nil
        repeatOperation = nil
        finishedExpression = nil
    }
}
