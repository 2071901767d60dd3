import CalculatorEngine

/// `tombola calc 0.1 + 0.2 =` prints `0.3`.
enum CalcCommand {
    static func run(_ arguments: [String]) -> Int32 {
        print("tombola calc: not built yet")
        return 1
    }
}
