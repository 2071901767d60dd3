import Testing
import JSON

@Suite struct CanonicalJSONTests {
    @Test func sortsKeysAndEscapesLikeJSONStringify() throws {
        let value = try JSONValue.parse(#"{"b":[1,-2,true,null],"a":"q\"\\\n\t\u0001/é€😀","A":{}}"#)
        #expect(value.canonicalString == #"{"A":{},"a":"q\"\\\n\t\u0001/é€😀","b":[1,-2,true,null]}"#)
    }

    @Test func rejectsMalformedJSON() {
        for text in ["{", "[1,]", "01", "\"a", "{\"a\" 1}", "tru", "1 2"] {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONValue.parse(text) }
        }
    }
}
