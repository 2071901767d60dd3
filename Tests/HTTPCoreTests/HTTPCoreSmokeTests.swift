import Testing
@testable import HTTPCore

@Suite struct HTTPCoreSmokeTests {
    @Test func moduleLinks() { #expect(String(describing: HTTPCoreModule.self) == "HTTPCoreModule") }
}
