import Testing
@testable import CalculatorEngine

@Suite struct ExactnessTests {
    static let radians: [(String, String)] = [
        ("pi sin", "0"),
        ("pi cos", "-1"),
        ("pi / 2 = sin", "1"),
        ("pi / 2 = tan", "undefined"),
        ("pi * 1000000 = sin", "0"),
        ("pi / 6 = sin", "0.5"),
        ("1 EE 300 sin", "-0.985750425160377"),
        ("1 sin", "0.8414709848078965"),
        ("0 cos", "1"),
        ("2 sqrt sq", "2"),
        ("2 sqrt * 2 sqrt =", "2"),
        ("2 sqrt * 2 sqrt - 2 =", "0"),
        ("3 cbrt cube", "3"),
        ("e ln", "1"),
        ("10 ln exp", "10"),
        ("2 ln", "0.6931471805599453"),
        ("1000 log", "3"),
        ("0.001 log", "-3"),
        ("2 log", "0.3010299956639812"),
        ("0 ln", "invalid_input"),
        ("1 neg log", "invalid_input"),
        ("2 asin", "invalid_input"),
        ("1 asin", "1.570796326794897"),
        ("1 acos", "0"),
        ("pi", "3.141592653589793"),
        ("e", "2.718281828459045"),
        ("1 exp", "2.718281828459045"),
        ("3 pow10", "1000"),
        ("0.5 pow10", "3.162277660168379"),
        ("1 EE 200 inv", "1e-200"),
        ("16 sqrt", "4"),
        ("0.25 sqrt", "0.5"),
        ("2 sqrt", "1.414213562373095"),
        ("8 neg cbrt", "-2"),
        ("5 fact", "120"),
        ("0 fact", "1"),
        ("170.5 fact", "invalid_input"),
        ("1 neg fact", "invalid_input"),
        ("170 fact", "7.257415615307999e+306"),
        ("3248 fact", "1.973634253086043e+9997"),
        ("3249 fact", "overflow"),
        ("5 neg abs", "5"),
        ("1.0000001 ^ 1000000 =", "1.105170912549793"),
        ("2 ^ 1000000 =", "overflow"),
        ("10 ^ 9999 =", "1e+9999"),
        ("10 ^ 10000 =", "overflow"),
        ("10 ^ 9999 neg =", "1e-9999"),
        ("10 ^ 10000 neg =", "overflow"),
        ("99999 exp", "overflow"),
        ("9 EE 9999 * 9 EE 9999 =", "overflow"),
        ("1 EE 9999 * 99 =", "overflow"),
    ]

    @Test(arguments: radians)
    func exactCasesStayExactInRadians(keys: String, expected: String) {
        #expect(KeySequence.shown(keys, mode: .scientific) == expected)
    }

    static let degrees: [(String, String)] = [
        ("30 sin", "0.5"),
        ("150 sin", "0.5"),
        ("390 sin", "0.5"),
        ("30 neg sin", "-0.5"),
        ("60 cos", "0.5"),
        ("90 cos", "0"),
        ("90 tan", "undefined"),
        ("270 neg tan", "undefined"),
        ("45 tan", "1"),
        ("135 tan", "-1"),
        ("45 sin", "0.7071067811865475"),
        ("45 sin sq", "0.5"),
        ("1 EE 20 sin", "-0.9848077530122081"),
        ("0.5 asin", "30"),
        ("1 atan", "45"),
        ("0.5 acos", "60"),
        ("1 neg acos", "180"),
        ("pi * 60 = sin", "-0.1477327557127973"),
    ]

    @Test(arguments: degrees)
    func exactCasesStayExactInDegrees(keys: String, expected: String) {
        #expect(KeySequence.shown(keys, mode: .scientific, angle: .degrees) == expected)
    }

    static let ties: [(String, String)] = [
        // 4999999999999998.5, 1234567890123454.5 and …55.5 are exact ties at 16 digits.
        ("9999999999999997 / 2 =", "4999999999999999"),
        ("9999999999999997 neg / 2 =", "-4999999999999999"),
        ("1234567890123454 + 0.5 =", "1234567890123455"),
        ("1234567890123455 + 0.5 =", "1234567890123456"),
        ("1234567890123454 neg - 0.5 =", "-1234567890123455"),
        ("0.1234567890123454 + 5 EE 17 neg =", "0.1234567890123455"),
        ("1234567890123454 + 0.4999999 =", "1234567890123454"),
        ("1234567890123454 + 0.5000001 =", "1234567890123455"),
        ("2469135780246917 * 5 EE 16 =", "1.234567890123459e+32"),
    ]

    @Test(arguments: ties)
    func aTieRoundsHalfAwayFromZero(keys: String, expected: String) {
        #expect(KeySequence.shown(keys) == expected)
    }

    @Test func aTieOfAnInexactValueRoundsHalfAwayFromZero() {
        // 2469135780246909 / 2 is 1234567890123454.5: a binary value that is exactly a tie.
        let tie = MPFRNumber.from(.fraction(numerator: "2469135780246909", denominator: "2"))
        #expect(DecimalFormatter.string(for: CalcNumber(approximate: tie)) == "1234567890123455")
        let negativeTie = MPFRNumber.from(.fraction(numerator: "-2469135780246909", denominator: "2"))
        #expect(DecimalFormatter.string(for: CalcNumber(approximate: negativeTie)) == "-1234567890123455")
        let belowTie = MPFRNumber.from(.fraction(numerator: "4938271560493817", denominator: "4"))
        #expect(DecimalFormatter.string(for: CalcNumber(approximate: belowTie)) == "1234567890123454")
    }

    @Test func roundingCanCarryIntoANewDigit() {
        #expect(KeySequence.shown("9999999999999999 + 0.5 =") == "1e+16")
        #expect(KeySequence.shown("0.9999999999999999 + 5 EE 17 neg =") == "1")
    }
}
