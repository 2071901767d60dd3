import Testing
@testable import CalculatorEngine

@Suite struct BasicModeTests {
    static let specExamples: [(String, String)] = [
        ("2 + 3 * 4 =", "20"),
        ("1 + - 2 =", "-1"),
        ("2 + 3 = =", "8"),
        ("2 + =", "4"),
        ("200 + 10 % =", "220"),
        ("50 %", "0.5"),
        ("0.1 + 0.2 =", "0.3"),
        ("0.1 * 3 - 0.3 =", "0"),
        ("99999999 * 99999999 =", "9999999800000001"),
        ("1 / 3 * 3 =", "1"),
        ("16 sqrt", "4"),
        ("2 sqrt sq", "2"),
    ]

    @Test(arguments: specExamples)
    func specExamplesShowTheirResults(keys: String, expected: String) {
        #expect(KeySequence.shown(keys) == expected)
    }

    static let immediateExecution: [(String, String)] = [
        ("12 + 7 *", "19"),
        ("12 + 7 * 2 =", "38"),
        ("5 - 8 =", "-3"),
        ("2 * + 3 =", "5"),
        ("2 + 3 = 7 =", "10"),
        ("2 + 3 = * 4 =", "20"),
        ("10 / 4 =", "2.5"),
        ("2 * = =", "8"),
        ("3 - = =", "-3"),
        ("200 - 10 % =", "180"),
        ("200 * 10 % =", "20"),
        ("200 / 10 % =", "2000"),
        ("9 + sqrt =", "12"),
        ("3 sq", "9"),
        ("4 inv", "0.25"),
        ("2 ^ 3 ^ 2 =", "64"),
        ("7 =", "7"),
        ("=", "0"),
        ("+ 5 =", "5"),
        ("2 + ( 3 + 4 ) * 2 =", "18"),
    ]

    @Test(arguments: immediateExecution)
    func operatorsApplyImmediately(keys: String, expected: String) {
        #expect(KeySequence.shown(keys) == expected)
    }

    static let entry: [(String, String)] = [
        ("13 .", "13."),
        ("1.50", "1.50"),
        (".", "0."),
        ("0 0 0 7", "7"),
        ("0.0 0", "0.00"),
        ("1 . . 5", "1.5"),
        ("12345678901234567", "1234567890123456"),
        ("0.12345678901234567", "0.1234567890123456"),
        ("neg", "-0"),
        ("0.0 neg", "-0.0"),
        ("0 neg", "-0"),
        ("0 . neg", "-0."),
        ("0.00 neg", "-0.00"),
        ("0 . neg 5", "-0.5"),
        ("neg 0 . 5", "-0.5"),
        ("0 neg 7", "-7"),
        ("0 . neg neg 5", "0.5"),
        ("0 . neg back", "0"),
        ("0 neg back", "0"),
        ("12 CE neg 5", "-5"),
        ("5 neg", "-5"),
        ("5 neg neg", "5"),
        ("123 back", "12"),
        ("1.5 back back", "1"),
        ("5 back", "0"),
        ("5 neg back", "0"),
        ("2 + 3 = back", "5"),
        ("2 + 3 = 4", "4"),
        ("2 MS 7", "7"),
        ("3 MS MC 8 MR", "8"),
        ("1 EE 3", "1e+3"),
        ("1.5 EE 12 neg", "1.5e-12"),
        ("1.5 EE 3 =", "1500"),
        ("2 EE 3 neg =", "0.002"),
        ("EE 5 =", "100000"),
        ("12 CE", "0"),
        ("2 + 5 CE 3 =", "5"),
    ]

    @Test(arguments: entry)
    func entryShowsWhatWasTyped(keys: String, expected: String) {
        #expect(KeySequence.shown(keys) == expected)
    }

    static let signOfAZeroEntry: [(String, String)] = [
        ("0 . neg 5 =", "-0.5"),
        ("neg 0 . 5 =", "-0.5"),
        ("0.00 neg 1 =", "-0.001"),
        ("0 . neg 5 + 1 =", "0.5"),
        ("3 + 0 . neg 5 =", "2.5"),
        ("3 * 0.0 neg 2 =", "-0.06"),
        ("2 + 5 CE neg 3 =", "-1"),
        ("C neg 4 =", "-4"),
        ("0 neg =", "0"),
        ("0 . neg =", "0"),
        ("neg =", "0"),
    ]

    @Test(arguments: signOfAZeroEntry)
    func negateFlipsTheSignOfAnEntryThatIsStillZero(keys: String, expected: String) {
        #expect(KeySequence.shown(keys) == expected)
    }

    static let computedZeros = ["5 - 5 = neg", "3 - 3 + neg", "0 sqrt neg", "0 % neg", "5 + 5 - 10 = neg neg"]

    @Test(arguments: computedZeros)
    func negateOnAComputedZeroDoesNothing(keys: String) {
        #expect(KeySequence.shown(keys) == "0")
        // and leaves no sign behind for the next number
        #expect(KeySequence.shown(keys + " 7") == "7")
    }

    @Test func negateOnAResultNegatesIt() {
        #expect(KeySequence.shown("2 + 3 = neg") == "-5")
        #expect(KeySequence.shown("5 + neg =") == "0")
    }

    @Test func functionKeysWorkInBasicMode() {
        #expect(KeySequence.shown("30 sin", angle: .degrees) == "0.5")
        #expect(KeySequence.shown("5 fact") == "120")
        #expect(KeySequence.shown("1000 log") == "3")
    }
}
