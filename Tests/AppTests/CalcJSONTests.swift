import Foundation
import Testing
@testable import App
@testable import Server

@Suite struct CalcJSONTests {
    @Test(arguments: [
        #"{"a":1}"#, #" { "a" : [1, -2.5e+3, true, false, null, "x"] } "#, #""\u00e9\ud83d\ude00\n\"\\\/""#,
        "0", "-0", "1E9", #"{"a":{"b":{"c":[]}}}"#, #"{"a":1,"a":2}"#,
    ])
    func acceptsValidJSON(_ text: String) throws {
        let value = try CalcJSONReader.parse(text)
        let reference = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        if case .string(let string) = value { #expect(string == reference as? String) }
    }

    @Test(arguments: [
        "", " ", "{", "}", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, "[1,]", "01", "1.", ".5", "-", "1e", "+1",
        "tru", "nul", #""abc"#, "\"a\u{01}b\"", #""\x""#, #""\ud800""#, #""\udc00x""#, #""\u12G4""#, "{}{}", "[] x",
        "'a'", "NaN", #"{a:1}"#,
    ])
    func rejectsMalformedJSON(_ text: String) {
        #expect(throws: CalcJSONError.malformed) { try CalcJSONReader.parse(text) }
    }

    @Test func limitsNestingDepth() throws {
        let ok = String(repeating: "[", count: CalcJSONReader.maxDepth) + String(repeating: "]", count: CalcJSONReader.maxDepth)
        _ = try CalcJSONReader.parse(ok)
        let deep = "[" + ok + "]"
        #expect(throws: CalcJSONError.tooDeep) { try CalcJSONReader.parse(deep) }
        // A hostile depth fails fast instead of recursing 100,000 levels.
        #expect(throws: CalcJSONError.tooDeep) { try CalcJSONReader.parse(String(repeating: "[", count: 100_000)) }
    }

    @Test(arguments: [("1", 1), ("9007199254740991", 9_007_199_254_740_991)])
    func readsPositiveIntegers(_ text: String, _ expected: Int) throws {
        #expect(try CalcJSONReader.parse(text).positiveInteger == expected)
    }

    @Test(arguments: ["0", "-1", "1.0", "1e2", "9007199254740992", "99999999999999999999", #""1""#, "true"])
    func refusesOtherNumbersAsSeq(_ text: String) throws {
        #expect(try CalcJSONReader.parse(text).positiveInteger == nil)
    }

    @Test(arguments: ["", "plain", "quote \" and backslash \\", "controls \n\r\t\u{0}\u{1f}", "π ÷ 一等奖 😀", "\u{7f}"])
    func writesStringsThatAnyReaderReadsBack(_ text: String) throws {
        var out: [UInt8] = []
        CalcFrames.appendString(text, to: &out)
        let decoded = try JSONSerialization.jsonObject(with: Data(out), options: .fragmentsAllowed) as? String
        #expect(decoded == text)
        #expect(try CalcJSONReader.parse(out) == .string(text))
    }

    @Test func errorFramesCarryCodeMessageAndSeq() throws {
        let frame = CalcFrames.error(.unknownKey("x\"y"), seq: 12)
        #expect(frame == #"{"type":"error","code":"unknown_key","message":"Unknown key \"x\"y\"","seq":12}"#)
        #expect(CalcFrames.hello(session: "ab") == #"{"type":"hello","session":"ab"}"#)
        let body = String(decoding: CalcFrames.apiError(.unknownKey("q"), index: 3), as: UTF8.self)
        #expect(body == #"{"error":{"code":"unknown_key","message":"Unknown key \"q\"","index":3}}"#)
    }
}
