import Testing
@testable import App

@Suite struct AppSmokeTests {
    @Test func moduleLinks() { #expect(String(describing: AppModule.self) == "AppModule") }
}
