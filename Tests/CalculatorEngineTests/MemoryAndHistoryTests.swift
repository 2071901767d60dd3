import Testing
@testable import CalculatorEngine

@Suite struct MemoryAndHistoryTests {
    static let memory: [(String, String, Bool)] = [
        ("5 MS C MR", "5", true),
        ("5 M+ 3 M+ MR", "8", true),
        ("5 M- MR", "-5", true),
        ("5 MS MC MR", "5", false),
        ("2 + 3 = MS 1 + MR =", "6", true),
        ("0.1 M+ 0.2 M+ MR", "0.3", true),
        ("MR", "0", false),
    ]

    @Test(arguments: memory)
    func memoryKeysStoreAndRecall(keys: String, expected: String, memoryFlag: Bool) {
        let display = KeySequence.run(keys)
        #expect(display.display == expected)
        #expect(display.memory == memoryFlag)
    }

    @Test func historyKeepsFinishedCalculationsOldestFirst() {
        let display = KeySequence.run("1 + 2 = 3 * 4 = =")
        #expect(display.history == [
            CalculatorHistoryEntry(expression: "1 + 2 =", result: "3"),
            CalculatorHistoryEntry(expression: "3 × 4 =", result: "12"),
            CalculatorHistoryEntry(expression: "12 × 4 =", result: "48"),
        ])
    }

    @Test func historyKeepsTheLast50() {
        var calculator = Calculator()
        for n in 1...60 {
            for key in KeySequence.keys("\(n) + 1 =") { calculator.press(key) }
        }
        let history = calculator.display.history
        #expect(history.count == Calculator.historyLimit)
        #expect(history.first?.expression == "11 + 1 =")
        #expect(history.last?.result == "61")
    }

    @Test func recallMakesAHistoryResultTheOperand() {
        #expect(KeySequence.shown("1 / 3 = C 5 + recall:0 * 3 =") == "16")
        #expect(KeySequence.shown("2 sqrt = C recall:0 sq") == "2")
        #expect(KeySequence.shown("7 + 1 = 9 recall:5") == "9")
    }

    @Test func historySurvivesClear() {
        #expect(KeySequence.run("1 + 2 = C").history.count == 1)
    }
}
