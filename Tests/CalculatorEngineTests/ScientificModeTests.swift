import Testing
@testable import CalculatorEngine

@Suite struct ScientificModeTests {
    static let examples: [(String, String)] = [
        ("2 + 3 * 4 =", "14"),
        ("2 ^ 3 ^ 2 =", "512"),
        ("7 neg mod 3 =", "-1"),
        ("7 mod 3 neg =", "1"),
        ("7.5 mod 2 =", "1.5"),
        ("( 2 + 3 =", "5"),
        ("( 2 + 3 ) * 4 =", "20"),
        ("2 * ( 3 + ( 4 - 1 =", "12"),
        ("2 + 3 * 4 = =", "26"),
        ("27 ^ ( 1 / 3 ) =", "3"),
        ("8 neg ^ ( 1 / 3 ) =", "-2"),
        ("1 EE 5 neg =", "0.00001"),
        ("1.5 neg EE 2 =", "-150"),
        ("2 + 3 * 4 ^ 2 =", "50"),
        ("2 * 3 + 4 * 5 =", "26"),
        ("10 - 2 - 3 =", "5"),
        ("2 ^ 10 =", "1024"),
        ("2 ^ 0.5 neg =", "0.7071067811865475"),
        ("8 root 3 =", "2"),
        ("16 root 4 + 1 =", "3"),
        ("2 * + 3 =", "5"),
        ("2 + 3 * =", "11"),
        ("( 2 + 3 ) = =", "8"),
        ("5 + 1 ) =", "6"),
        ("2 + 3 ( 4 * 5 ) =", "22"),
        ("100 + 10 % =", "110"),
        ("2 + 3 * 50 % =", "3.5"),
        ("4 neg sqrt", "invalid_input"),
        ("2 neg ^ 0.5 =", "invalid_input"),
        ("0 ^ 0 =", "1"),
        ("0 ^ 1 neg =", "divide_by_zero"),
        ("5 mod 0 =", "undefined"),
        ("8 root 0 =", "invalid_input"),
    ]

    @Test(arguments: examples)
    func precedenceAndParenthesesApply(keys: String, expected: String) {
        #expect(KeySequence.shown(keys, mode: .scientific) == expected)
    }

    @Test func operatorShowsTheReducedValue() {
        #expect(KeySequence.shown("2 * 3 +", mode: .scientific) == "6")
        #expect(KeySequence.shown("2 + 3 *", mode: .scientific) == "3")
    }

    @Test func switchingModeDropsThePendingExpression() {
        var calculator = Calculator()
        _ = calculator.setMode(.scientific)
        for key in KeySequence.keys("2 + 3") { calculator.press(key) }
        let switched = calculator.setMode(.basic)
        #expect(switched.expression == "")
        #expect(switched.display == "3")
        #expect(calculator.press(.equals).display == "3")
    }
}
