import Foundation
import JSON
import Testing

@Suite struct JSONParserTests {
    @Test(arguments: [
        #"{"a":1}"#, #" { "a" : [1, -2.5e+3, true, false, null, "x"] } "#, #""\u00e9\ud83d\ude00\n\"\\\/""#,
        "0", "-0", "1E9", #"{"a":{"b":{"c":[]}}}"#, #"{"a":1,"a":2}"#,
    ])
    func acceptsValidJSONAsFoundationReadsIt(_ text: String) throws {
        let value = try JSONValue.parse(text)
        let reference = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        switch value {
        case .string(let string): #expect(string == reference as? String)
        case .int(let integer): #expect(Int64(exactly: (reference as? NSNumber)?.doubleValue ?? .nan) == integer)
        case .object(let members): #expect(members.count == (reference as? [String: Any])?.count)
        default: break
        }
    }

    @Test(arguments: [
        "", " ", "{", "}", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, "[1,]", "01", "1.", ".5", "-", "1e", "+1",
        "tru", "nul", #""abc"#, "\"a\u{01}b\"", #""\x""#, #""\ud800""#, #""\udc00x""#, #""\u12G4""#, "{}{}", "[] x",
        "'a'", "NaN", #"{a:1}"#,
    ])
    func rejectsMalformedJSON(_ text: String) {
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        #expect(error?.reason == .malformed)
    }

    @Test func refusesInvalidUTF8InsideAString() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xff, 0x22]) }
    }

    @Test func keepsIntegersExactAndApartFromFractions() throws {
        #expect(try JSONValue.parse("9007199254740993") == .int(9_007_199_254_740_993))
        #expect(try JSONValue.parse("-9223372036854775808") == .int(.min))
        #expect(try JSONValue.parse("1.0") == .double(1))
        #expect(try JSONValue.parse("1e2") == .double(100))
        #expect(try JSONValue.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
    }

    @Test(arguments: [1, 16, 64])
    func limitsNestingDepth(_ maxDepth: Int) throws {
        let ok = String(repeating: "[", count: maxDepth) + String(repeating: "]", count: maxDepth)
        _ = try JSONValue.parse(ok, maxDepth: maxDepth)
        let deep = "[" + ok + "]"
        #expect(throws: JSONParseError(.tooDeep, offset: maxDepth)) { try JSONValue.parse(deep, maxDepth: maxDepth) }
        // A hostile depth fails fast instead of recursing 100,000 levels.
        #expect(throws: JSONParseError.self) { try JSONValue.parse(String(repeating: "[", count: 100_000), maxDepth: maxDepth) }
    }
}
