import Testing
@testable import CalculatorEngine

@Suite struct DecimalFormatterTests {
    static let layouts: [(Bool, String, Int, String)] = [
        (false, "1500000000000000", 16, "1.5e+16"),
        (false, "2500000000000000", -12, "2.5e-12"),
        (false, "1000000000000000", 16, "1e+16"),
        (false, "9999999999999999", 15, "9999999999999999"),
        (false, "1000000000000000", -9, "0.000000001"),
        (false, "9999999999999999", -10, "9.999999999999999e-10"),
        (true, "1234500000000000", 2, "-123.45"),
        (false, "1200000000000000", 5, "120000"),
        (false, "1000000000000000", 0, "1"),
        (false, "3333333333333333", -1, "0.3333333333333333"),
        (true, "1000000000000000", -100, "-1e-100"),
        (false, "1000000000000000", 9999, "1e+9999"),
    ]

    @Test(arguments: layouts)
    func laysOutDigitsPlainOrExponential(negative: Bool, digits: String, exponent: Int, expected: String) {
        #expect(DecimalFormatter.layout(negative: negative, digits: digits, exponent: exponent) == expected)
    }

    static let values: [(String, String)] = [
        ("1 EE 16 =", "10000000000000000"),
        ("1.5 EE 16 =", "15000000000000000"),
        ("1.5 EE 16 + 0.5 =", "1.5e+16"),
        ("1 EE 20 - 1 =", "99999999999999999999"),
        ("1 EE 20 =", "1e+20"),
        ("1 EE 20 - 1 = neg", "-99999999999999999999"),
        ("2.5 EE 12 neg =", "2.5e-12"),
        ("9999999999999999 =", "9999999999999999"),
        ("9999999999999999 + 1 =", "10000000000000000"),
        ("1 EE 9 neg =", "0.000000001"),
        ("1 EE 10 neg =", "1e-10"),
        ("1 / 7 =", "0.1428571428571429"),
        ("2 / 3 =", "0.6666666666666667"),
        ("1 / 3 neg =", "-0.3333333333333333"),
        ("1.50 =", "1.5"),
        ("0 neg =", "0"),
        ("5 - 5 =", "0"),
        ("0.1 neg + 0.1 =", "0"),
        ("123456789 * 1000000000 =", "123456789000000000"),
    ]

    @Test(arguments: values)
    func resultsRoundTo16SignificantDigits(keys: String, expected: String) {
        #expect(KeySequence.shown(keys) == expected)
    }

    @Test(arguments: [
        ("2 ^ 64 =", "18446744073709551616"),
        ("20 fact", "2432902008176640000"),
        ("21 fact", "51090942171709440000"),
        ("22 fact", "1.124000727777608e+21"),
        ("2 ^ 66 =", "73786976294838206464"),
        ("2 ^ 67 =", "1.475739525896764e+20"),
        ("2 ^ 64 = neg", "-18446744073709551616"),
    ])
    func integersWithinTheDigitBudgetShowEveryDigit(keys: String, expected: String) {
        #expect(KeySequence.shown(keys, mode: .scientific) == expected)
    }

    @Test func neverShowsNegativeZero() {
        for keys in ["0 neg =", "5 neg + 5 =", "0 neg * 3 =", "1 neg * 0 =", "pi neg sin", "0 . neg 0 =", "neg 0 M+ MR"] {
            #expect(KeySequence.shown(keys, mode: .scientific) == "0", "\(keys)")
        }
    }
}
