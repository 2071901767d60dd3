/// Everything a calculator face shows after a key: the engine's whole output.
public struct CalculatorDisplay: Sendable, Equatable {
    /// The entry as typed while typing (`13.`, `1.50`, `1.5e+3`), otherwise the value
    /// rounded to 16 significant digits (see `DecimalFormatter`). Empty while `error` is set.
    public var display: String
    /// The pending expression (`12 + 7 ×`), or the finished one (`12 + 7 =`) after `=`.
    public var expression: String
    public var error: CalculatorError?
    /// Whether memory holds a value.
    public var memory: Bool
    public var mode: CalculatorMode
    public var angle: AngleUnit
    /// The session's last 50 finished calculations, oldest first.
    public var history: [CalculatorHistoryEntry]

    public init(
        display: String, expression: String, error: CalculatorError?, memory: Bool,
        mode: CalculatorMode, angle: AngleUnit, history: [CalculatorHistoryEntry]
    ) {
        self.display = display
        self.expression = expression
        self.error = error
        self.memory = memory
        self.mode = mode
        self.angle = angle
        self.history = history
    }
}

/// One finished calculation on the history tape.
public struct CalculatorHistoryEntry: Sendable, Equatable {
    /// The expression as shown when `=` was pressed, ending in ` =` (`1 + 2 =`).
    public var expression: String
    /// The result as displayed.
    public var result: String

    public init(expression: String, result: String) {
        self.expression = expression
        self.result = result
    }
}
