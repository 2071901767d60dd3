import Testing
@testable import CalculatorEngine

@Suite struct ErrorStateTests {
    static let errors: [(String, CalculatorError)] = [
        ("1 / 0 =", .divideByZero),
        ("0 / 0 =", .undefined),
        ("0 inv", .divideByZero),
        ("4 neg sqrt", .invalidInput),
        ("1 EE 9999 * 10 =", .overflow),
        ("5 / 0 +", .divideByZero),
    ]

    @Test(arguments: errors)
    func errorsAreStates(keys: String, expected: CalculatorError) {
        let display = KeySequence.run(keys)
        #expect(display.error == expected)
        #expect(display.display == "")
        #expect(display.expression == "")
    }

    @Test(arguments: ["+", "*", "=", "sqrt", "%", "neg", "back", "MS", "M+", "MR", "(", ")", "pi", "sin"])
    func operatorFunctionAndMemoryKeysDoNothingDuringAnError(key: String) {
        let display = KeySequence.run("1 / 0 = " + key)
        #expect(display.error == .divideByZero)
        #expect(display.memory == false)
    }

    @Test func clearAlwaysRecovers() {
        #expect(KeySequence.run("1 / 0 = C").error == nil)
        #expect(KeySequence.shown("1 / 0 = C") == "0")
        #expect(KeySequence.shown("1 / 0 = CE") == "0")
    }

    @Test func aDigitStartsFresh() {
        #expect(KeySequence.shown("1 / 0 = 7") == "7")
        #expect(KeySequence.shown("1 / 0 = 7 + 1 =") == "8")
        #expect(KeySequence.shown("1 / 0 = .") == "0.")
    }

    @Test func memorySurvivesAnError() {
        let display = KeySequence.run("5 MS 1 / 0 = C MR")
        #expect(display.memory)
        #expect(display.display == "5")
    }
}
