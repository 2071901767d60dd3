import Testing
@testable import WebSocketCore

@Suite struct WebSocketCoreSmokeTests {
    @Test func moduleLinks() { #expect(String(describing: WebSocketCoreModule.self) == "WebSocketCoreModule") }
}
