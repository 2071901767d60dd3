import Testing
@testable import CalculatorEngine

/// Digits on demand (`CalculatorValue.digits`): exact expansions of rationals with their
/// period, proven digits of inexact results recomputed from their recipe, and the limits.
@Suite struct DigitsTests {
    static let sqrt2 = "41421356237309504880168872420969807856967187537694807317667973799"
    static let pi = "14159265358979323846264338327950288419716939937510582097494459230781640628620899"

    static func value(_ keys: String, mode: CalculatorMode = .scientific, angle: AngleUnit = .radians) -> CalculatorValue {
        var calculator = Calculator()
        _ = calculator.setMode(mode)
        _ = calculator.setAngle(angle)
        for key in KeySequence.keys(keys) { calculator.press(key) }
        return calculator.value!
    }

    @Test func aRationalExpandsExactlyAndMarksItsPeriod() throws {
        let seventh = try Self.value("1 / 7 =").digits(position: 1, count: 14)
        #expect(seventh.status == .digits && seventh.exact)
        #expect(seventh.integer == "0" && seventh.digits == "14285714285714")
        #expect(seventh.repeatStart == 1 && seventh.repeatLength == 6 && seventh.terminatesAt == nil)
        let sixth = try Self.value("1 / 6 =").digits(position: 1, count: 5)
        #expect(sixth.digits == "16666" && sixth.repeatStart == 2 && sixth.repeatLength == 1)
        let eighth = try Self.value("1 / 8 =").digits(position: 2, count: 4)
        #expect(eighth.digits == "2500" && eighth.terminatesAt == 3 && eighth.repeatLength == nil)
        let integer = try Self.value("2 ^ 64 =").digits(position: 1, count: 3)
        #expect(integer.integer == "18446744073709551616" && integer.digits == "000" && integer.terminatesAt == 0)
    }

    @Test func irrationalDigitsAreRecomputedPastTheDisplay() throws {
        let root = try Self.value("2 sqrt").digits(position: 1, count: Self.sqrt2.count)
        #expect(root.status == .digits && !root.exact && root.integer == "1" && root.digits == Self.sqrt2)
        let pi = try Self.value("pi").digits(position: 1, count: Self.pi.count)
        #expect(pi.integer == "3" && pi.digits == Self.pi)
        let negative = try Self.value("pi neg").digits(position: 3, count: 5)
        #expect(negative.negative && negative.integer == "3" && negative.digits == "15926")
    }

    @Test func aFarWindowAgreesWithTheWholeExpansion() throws {
        let value = Self.value("2 ln * 3 sqrt + 1 exp =")
        let whole = try value.digits(position: 1, count: 1_000)
        let window = try value.digits(position: 990, count: 11)
        #expect(whole.digits.hasSuffix(window.digits))
        #expect(window.digits.count == 11)
    }

    @Test func hugeAndTinyResultsKeepTheirScale() throws {
        let huge = try Self.value("pi * 10 ^ 500 =").digits(position: 1, count: 5)
        #expect(huge.integer.count == 501 && huge.integer.hasPrefix("31415926535") && huge.digits.count == 5)
        let tiny = try Self.value("pi / 10 ^ 30 =").digits(position: 25, count: 12)
        #expect(tiny.integer == "0" && tiny.digits == "000003141592")
    }

    @Test func degreeTrigonometryIsRecomputedToo() throws {
        // sin 1° = 0.017452406437283512819418978516316…
        let sine = try Self.value("1 sin", angle: .degrees).digits(position: 1, count: 30)
        #expect(sine.digits == "017452406437283512819418978516")
    }

    @Test func zeroSaysSo() throws {
        let zero = try Self.value("5 - 5 =").digits(position: 1, count: 4)
        #expect(zero.status == .zero && zero.digits == "0000")
        let snapped = try Self.value("pi sin").digits(position: 1, count: 4)
        #expect(snapped.status == .zero)
    }

    @Test func theNumberBeingTypedHasDigitsToo() throws {
        let typed = try Self.value("12.5").digits(position: 1, count: 3)
        #expect(typed.integer == "12" && typed.digits == "500" && typed.exact)
    }

    @Test func anErrorHasNoValue() {
        var calculator = Calculator()
        for key in KeySequence.keys("1 / 0 =") { calculator.press(key) }
        #expect(calculator.value == nil)
    }

    @Test(arguments: [(0, 5), (1, 0), (1, CalculatorValue.maximumCount + 1), (CalculatorValue.maximumPosition, 2)])
    func requestsOutsideTheLimitsAreRefused(position: Int, count: Int) {
        #expect(throws: CalculatorDigitsError.outOfRange) { try Self.value("2 sqrt").digits(position: position, count: count) }
    }

    @Test func theLimitIsReachable() throws {
        let last = try Self.value("3 sqrt").digits(position: CalculatorValue.maximumPosition - 9, count: 10)
        #expect(last.digits.count == 10 && last.status == .digits)
    }

    @Test func aRecipeOverTheSizeCapIsNotKept() {
        var calculator = Calculator()
        _ = calculator.setMode(.scientific)
        calculator.press(.pi)
        for _ in 0..<(RealExpression.maximumSize / 2 + 1) {
            calculator.press(.add)
            calculator.press(.pi)
            calculator.press(.sin)
            calculator.press(.add)
            calculator.press(.digit(2))
            calculator.press(.sqrt)
        }
        calculator.press(.equals)
        #expect(throws: CalculatorDigitsError.unavailable) { try calculator.value!.digits(position: 1, count: 5) }
    }
}

extension DigitsTests {
    @Test func anIdentifiedValueThatIsTrulyExactSaysSo() throws {
        let two = try Self.value("2 sqrt sq").digits(position: 1, count: 5)
        #expect(two.integer == "2" && two.digits == "00000" && two.exact && two.identified)
        let zero = try Self.value("pi sin").digits(position: 1, count: 4)
        #expect(zero.status == .zero && zero.identified)
        let plain = try Self.value("1 / 7 =").digits(position: 1, count: 4)
        #expect(!plain.identified)
    }

    @Test func anIdentifiedValueProvenToDifferGetsItsTrueDigits() throws {
        // 10^(10^-100) = 1 + 2.3e-100 is within 2^-360 of 1: the calculator shows 1, and the
        // recomputation proves the true value is above it.
        let value = Self.value("1 EE 100 neg pow10")
        let digits = try value.digits(position: 95, count: 10)
        #expect(digits.status == .digits && !digits.exact && !digits.identified)
        #expect(digits.integer == "1" && digits.digits == "0000023025")
    }
}

extension DigitsTests {
    @Test func aRecipeNearTheSizeCapStillGivesAThousandDigits() throws {
        let value = Self.value("1" + String(repeating: " sin", count: RealExpression.maximumSize - 10))
        let digits = try value.digits(position: 1, count: 1_000)
        #expect(digits.status == .digits && digits.digits.count == 1_000)
        #expect(throws: CalculatorDigitsError.tooCostly) { try value.digits(position: 19_001, count: 1_000) }
    }
}
