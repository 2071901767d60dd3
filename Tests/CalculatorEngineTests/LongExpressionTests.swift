import Testing
@testable import CalculatorEngine

/// However long a calculation gets, a key does bounded work: the expression line keeps
/// and shows only its end, the pending stacks stay shallow, and results stay exact.
@Suite struct LongExpressionTests {
    static let limit = ExpressionText.shownLength

    /// What a face shows for the full line `text`: itself, or `…` and its end.
    static func shown(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count > limit else { return text }
        var result = "…"
        result.unicodeScalars.append(contentsOf: scalars.suffix(limit - 1))
        return result
    }

    @Test(arguments: [CalculatorMode.basic, .scientific])
    func twentyThousandAlternatingOnesAndPlusesAddUpWithABoundedLine(mode: CalculatorMode) {
        let ones = 10_000
        var calculator = Calculator()
        _ = calculator.setMode(mode)
        var longestExpression = 0
        var longestStored = 0
        var deepestStack = 0
        for count in 1...ones {
            _ = calculator.press(.digit(1))
            let display = calculator.press(.add)
            longestExpression = max(longestExpression, display.expression.unicodeScalars.count)
            longestStored = max(longestStored, calculator.line.storedLength)
            deepestStack = max(deepestStack, calculator.values.count + calculator.pending.count)
            if count % 1_000 == 0 { #expect(display.display == String(count)) }
        }
        let expression = calculator.press(.add).expression
        #expect(expression.hasPrefix("…"))
        #expect(expression.hasSuffix("1 + 1 + 1 +"))
        // `x + =` adds x to itself.
        let result = calculator.press(.equals)
        #expect(result.display == String(2 * ones))
        #expect(result.history.last?.expression.hasSuffix("1 + 1 + \(ones) =") == true)
        #expect(result.history.last.map { $0.expression.unicodeScalars.count <= Self.limit } == true)
        #expect(longestExpression <= Self.limit)
        #expect(longestStored <= 2 * ExpressionText.keptLength)
        #expect(deepestStack <= 2)
    }

    @Test(arguments: [CalculatorMode.basic, .scientific])
    func aLongLineShowsExactlyItsLastCharactersAfterAnEllipsis(mode: CalculatorMode) {
        let unit = ["12", "×", "5", "-", "45", "÷", "5", "+"]
        var calculator = Calculator()
        _ = calculator.setMode(mode)
        var typed: [String] = []
        for repetition in 1...120 {
            for word in unit {
                for key in KeySequence.keys(word == "×" ? "*" : word == "÷" ? "/" : word) {
                    _ = calculator.press(key)
                }
                typed.append(word)
            }
            let expected = Self.shown(typed.joined(separator: " "))
            #expect(calculator.display.expression == expected, "after \(repetition) repetitions")
        }
        // Each repetition adds ((x + 12) × 5 − 45) ÷ 5 − x in basic mode, 12 × 5 − 45 ÷ 5 with precedence.
        let step = mode == .basic ? (12 * 5 - 45) / 5 : 12 * 5 - 45 / 5
        // `x + =` adds x to itself.
        #expect(calculator.press(.equals).display == String(2 * 120 * step))
    }

    @Test func groupsAndFunctionsKeepTheEndOfALongOperandExact() {
        let ones = 500
        var calculator = Calculator()
        _ = calculator.setMode(.scientific)
        _ = calculator.press(.openParen)
        for index in 0..<ones {
            if index > 0 { _ = calculator.press(.add) }
            _ = calculator.press(.digit(1))
        }
        let group = "( " + Array(repeating: "1", count: ones).joined(separator: " + ") + " )"
        #expect(calculator.press(.closeParen).expression == Self.shown(group))
        let root = calculator.press(.sqrt)
        #expect(root.expression == Self.shown("√(" + group + ")"))
        #expect(root.expression.hasSuffix("+ 1 + 1 ))"))
        let square = calculator.press(.square)
        #expect(square.display == String(ones))
        _ = calculator.press(.add)
        _ = calculator.press(.digit(2))
        let total = calculator.press(.equals)
        #expect(total.display == String(ones + 2))
        #expect(total.expression == Self.shown("sqr(√(" + group + ")) + 2 ="))
    }

    @Test func deeplyNestedLongGroupsStayBounded() {
        var calculator = Calculator()
        _ = calculator.setMode(.scientific)
        var full: [String] = []
        var sum = 0
        for _ in 0..<Calculator.parenthesisLimit {
            _ = calculator.press(.openParen)
            full.append("(")
            for _ in 0..<60 {
                _ = calculator.press(.digit(3))
                _ = calculator.press(.add)
                full += ["3", "+"]
                sum += 3
            }
            let display = calculator.display
            #expect(display.expression == Self.shown(full.joined(separator: " ")))
            #expect(display.expression.unicodeScalars.count <= Self.limit)
        }
        #expect(calculator.line.storedLength <= (Calculator.parenthesisLimit + 1) * 2 * ExpressionText.keptLength)
        _ = calculator.press(.digit(1))
        let result = calculator.press(.equals)
        #expect(result.display == String(sum + 1))
        full.append("1")
        full += Array(repeating: ")", count: Calculator.parenthesisLimit)
        full.append("=")
        #expect(result.expression == Self.shown(full.joined(separator: " ")))
    }
}
