import Testing
@testable import CalculatorEngine

/// Key sequences in the style of Windows Calculator's CalculatorManagerTest, where SPEC is
/// silent and we follow it (results shown at our 16 significant digits).
@Suite struct WindowsParityTests {
    static let standard: [(String, String)] = [
        ("123.456", "123.456"),
        ("+", "0"),
        ("sqrt", "0"),
        ("2 + 3 = 4 =", "7"),
        ("4 =", "4"),
        ("256 sqrt sqrt sqrt", "2"),
        ("3 - 6 = * 3 =", "-9"),
        ("9 * 6 - CE 8 =", "46"),
        ("6 * 6 % =", "0.36"),
        ("50 + 20 % =", "60"),
        ("4 + =", "8"),
        ("5 + * 3", "3"),
        ("1 EE neg 9999 / 10 =", "overflow"),
        ("1 EE neg 9999 =", "1e-9999"),
        ("0 / 0 =", "undefined"),
        ("1 / 0 =", "divide_by_zero"),
        ("12 + 5 CE 2 +", "14"),
        ("100 neg inv", "-0.01"),
        ("123 back back", "1"),
        ("123 back back back", "0"),
        ("4 sqrt - 2 +", "0"),
        ("1024 sqrt - 32 +", "0"),
        ("2.25 sqrt - 1.5 =", "0"),
        ("7 - 6 back back", "0"),
        ("8 / + * 2 *", "16"),
        ("8 * 2 = =", "32"),
        ("13 = =", "13"),
        ("1 + 2 * 3 =", "9"),
    ]

    @Test(arguments: standard)
    func standardSequencesMatchWindowsCalculator(keys: String, expected: String) {
        #expect(KeySequence.shown(keys) == expected)
    }

    static let scientific: [(String, String)] = [
        ("1 + 0 * 2 =", "1"),
        ("3 - 6 = * 3 +", "-9"),
        ("9 * 6 - CE 8 * 2 +", "38"),
        ("6 * 6 neg sqrt", "invalid_input"),
        ("50 + 20 inv -", "50.05"),
        ("257 sqrt sqrt sqrt", "2.000974897633077"),
        ("( 2.25 sqrt / 1.5 ) log", "0"),
        ("12 sq", "144"),
        ("5 fact", "120"),
        ("5 ^ 2 +", "25"),
        ("8 root 3 *", "2"),
        ("8 cube", "512"),
        ("8 cube cbrt", "8"),
        ("10 log", "1"),
        ("5 pow10", "100000"),
        ("10 ln", "2.302585092994046"),
        ("2 exp", "7.38905609893065"),
        ("5 ^ 0 +", "1"),
        ("0 ^ 0 +", "1"),
        ("27 neg root 3 +", "-3"),
        ("8 ^ ( 2 / 3 ) - 4 +", "0"),
        ("4 ^ ( 3 / 2 ) - 8 +", "0"),
        ("10 ^ 1.23456 +", "17.16168791224179"),
        ("1 + ( + 3 )", "3"),
        ("( ( 12 )", "12"),
        ("12 ) ) (", "12"),
        ("2 ( 2 ) +", "4"),
        ("2 ( 2 ) + =", "8"),
        ("( 8 ) 2 =", "16"),
        ("( 7 * 2 ) 2 =", "28"),
        ("( 7 * 2 ) 2 = ( 14 ) 2 =", "28"),
        ("( 8 ) 0.5 =", "4"),
        ("( 8 ) . 5 =", "4"),
        ("2 neg log", "invalid_input"),
        ("pi sin", "0"),
        ("pi cos", "-1"),
        ("pi tan", "0"),
    ]

    @Test(arguments: scientific)
    func scientificSequencesMatchWindowsCalculator(keys: String, expected: String) {
        #expect(KeySequence.shown(keys, mode: .scientific) == expected)
    }

    static let degrees: [(String, String)] = [
        ("1 sin", "0.01745240643728351"),
        ("1 cos", "0.9998476951563912"),
        ("1 tan", "0.01745506492821759"),
        ("1 asin", "90"),
        ("1 acos", "0"),
        ("1 atan", "45"),
        ("5 asin", "invalid_input"),
    ]

    @Test(arguments: degrees)
    func degreeFunctionsMatchWindowsCalculator(keys: String, expected: String) {
        #expect(KeySequence.shown(keys, mode: .scientific, angle: .degrees) == expected)
    }

    @Test func expressionShowsImplicitMultiplication() {
        #expect(KeySequence.run("12 ) ) (", mode: .scientific).expression == "12 × (")
        #expect(KeySequence.run("( 8 ) 2 =", mode: .scientific).expression == "( 8 ) × 2 =")
    }
}
