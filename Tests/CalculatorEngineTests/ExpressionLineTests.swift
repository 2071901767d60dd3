import Testing
@testable import CalculatorEngine

@Suite struct ExpressionLineTests {
    static let basic: [(String, String)] = [
        ("12 + 7 *", "12 + 7 ×"),
        ("12 + 7 * -", "12 + 7 -"),
        ("12 + 7", "12 +"),
        ("1 + 2 =", "1 + 2 ="),
        ("2 + =", "2 + 2 ="),
        ("2 + 3 = =", "5 + 3 ="),
        ("2 + 3 = 4", ""),
        ("9 sqrt", "√(9)"),
        ("2 + 9 sqrt", "2 + √(9)"),
        ("2 + 9 sqrt sq", "2 + sqr(√(9))"),
        ("200 + 10 %", "200 + 20"),
        ("4 inv =", "1/(4) ="),
        ("8 / 2 -", "8 ÷ 2 -"),
    ]

    @Test(arguments: basic)
    func showsThePendingExpression(keys: String, expected: String) {
        #expect(KeySequence.run(keys).expression == expected)
    }

    static let scientific: [(String, String)] = [
        ("( 2 + 3", "( 2 +"),
        ("( 2 + 3 )", "( 2 + 3 )"),
        ("( 2 + 3 ) *", "( 2 + 3 ) ×"),
        ("2 * ( 3 + 4 =", "2 × ( 3 + 4 ) ="),
        ("2 ^ 3 mod", "2 ^ 3 mod"),
        ("8 root 3 =", "8 root 3 ="),
        ("30 sin", "sin(30)"),
    ]

    @Test(arguments: scientific)
    func showsParenthesesAndOperators(keys: String, expected: String) {
        #expect(KeySequence.run(keys, mode: .scientific).expression == expected)
    }
}
