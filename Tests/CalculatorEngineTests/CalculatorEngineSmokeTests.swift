import Testing
@testable import CalculatorEngine

@Suite struct CalculatorEngineSmokeTests {
    @Test func moduleLinks() { #expect(String(describing: CalculatorEngineModule.self) == "CalculatorEngineModule") }
}
