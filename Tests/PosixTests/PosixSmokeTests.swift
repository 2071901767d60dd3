import Testing
@testable import Posix

@Suite struct PosixSmokeTests {
    @Test func moduleLinks() { #expect(String(describing: PosixModule.self) == "PosixModule") }
}
