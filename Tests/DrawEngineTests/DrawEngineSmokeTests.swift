import Testing
@testable import DrawEngine

@Suite struct DrawEngineSmokeTests {
    @Test func moduleLinks() { #expect(String(describing: DrawEngineModule.self) == "DrawEngineModule") }
}
