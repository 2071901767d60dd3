import Testing
import JSON

/// Inputs the libFuzzer `json` target (fuzz/json) found, kept as regression tests.
@Suite struct JSONFuzzRegressionTests {
    /// fuzz-artifacts/json/crash-1368bcac…: `1e73709551616` overflowed to `inf`, whose
    /// canonical form (`inf`) is not JSON, so the message parser handed JSONDecoder garbage.
    @Test(arguments: ["1e73709551616", "[1,-0,1e73709551616,null]", "-1e400", "{\"to\":1E999}"])
    func numbersBeyondDoubleRangeAreRefused(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test(arguments: ["1e308", "-1.5e-300", "5e-324", "1e-400", "18446744073709551616", "0.1"])
    func everyAcceptedNumberHasACanonicalFormThatParsesBack(text: String) throws {
        let value = try JSONValue.parse(text)
        let again = try JSONValue.parse(value.canonicalBytes)
        #expect(again == value, "\(text) → \(value.canonicalString)")
    }

    /// Nesting is limited (64), so a deep bomb is an error, not a stack overflow.
    @Test func deepNestingIsRefusedWithoutExhaustingTheStack() {
        let bomb = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(bomb) }
        let objects = String(repeating: "{\"a\":", count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(objects) }
    }
}
