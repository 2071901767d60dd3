import Testing
@testable import Storage

@Suite struct StorageSmokeTests {
    @Test func moduleLinks() { #expect(String(describing: StorageModule.self) == "StorageModule") }
}
