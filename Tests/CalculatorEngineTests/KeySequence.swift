@testable import CalculatorEngine

/// Test-side reading of space-separated key names (the wire names of docs/PROTOCOL.md;
/// numbers such as `99999999` or `0.1` are typed digit by digit).
enum KeySequence {
    static let names: [String: CalculatorKey] = [
        ".": .point, "neg": .negate, "+": .add, "-": .subtract, "*": .multiply, "/": .divide,
        "=": .equals, "C": .clear, "CE": .clearEntry, "back": .backspace, "%": .percent,
        "sqrt": .sqrt, "sq": .square, "inv": .reciprocal, "MC": .memoryClear, "MR": .memoryRecall,
        "MS": .memoryStore, "M+": .memoryAdd, "M-": .memorySubtract, "(": .openParen, ")": .closeParen,
        "^": .power, "EE": .exponentEntry, "mod": .mod, "sin": .sin, "cos": .cos, "tan": .tan,
        "asin": .asin, "acos": .acos, "atan": .atan, "ln": .ln, "log": .log, "exp": .exp,
        "pow10": .pow10, "cube": .cube, "cbrt": .cbrt, "root": .root, "fact": .factorial,
        "abs": .abs, "pi": .pi, "e": .e,
    ]

    static func keys(_ text: String) -> [CalculatorKey] {
        text.split(separator: " ").flatMap { word -> [CalculatorKey] in
            if let key = names[String(word)] { return [key] }
            if word.hasPrefix("recall:"), let n = Int(word.dropFirst(7)) { return [.recallHistory(n)] }
            return word.map { character in
                if character == "." { return .point }
                guard let digit = character.wholeNumberValue else { fatalError("unknown key \(word)") }
                return .digit(digit)
            }
        }
    }

    /// Presses `text` on a fresh calculator and returns the last display.
    static func run(_ text: String, mode: CalculatorMode = .basic, angle: AngleUnit = .radians) -> CalculatorDisplay {
        var calculator = Calculator()
        var display = calculator.setMode(mode)
        display = calculator.setAngle(angle)
        for key in keys(text) { display = calculator.press(key) }
        return display
    }

    /// What the display shows: the number, or the error code.
    static func shown(_ text: String, mode: CalculatorMode = .basic, angle: AngleUnit = .radians) -> String {
        let display = run(text, mode: mode, angle: angle)
        return display.error?.rawValue ?? display.display
    }
}
