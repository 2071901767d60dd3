import CalculatorEngine
import JSON
import Testing
@testable import App
@testable import Server

@Suite struct CalcJSONTests {
    @Test func limitsNestingDepthTo16() throws {
        let ok = String(repeating: "[", count: CalcJSON.maxDepth) + String(repeating: "]", count: CalcJSON.maxDepth)
        _ = try CalcJSON.parse(ok)
        #expect(throws: JSONParseError.self) { try CalcJSON.parse("[" + ok + "]") }
    }

    @Test(arguments: [("1", 1), ("9007199254740991", 9_007_199_254_740_991)])
    func readsPositiveIntegers(_ text: String, _ expected: Int) throws {
        #expect(try CalcJSON.parse(text).positiveInteger == expected)
    }

    @Test(arguments: ["0", "-1", "1.0", "1e2", "9007199254740992", "99999999999999999999", #""1""#, "true"])
    func refusesOtherNumbersAsSeq(_ text: String) throws {
        #expect(try CalcJSON.parse(text).positiveInteger == nil)
    }

    @Test func readsBodiesThatAreNotUTF8AsReplacementCharacters() throws {
        #expect(try CalcJSON.parse([0x22, 0xff, 0x22]) == .string("\u{fffd}"))
    }

    @Test func errorFramesCarryCodeMessageAndSeq() throws {
        let frame = CalcFrames.error(.unknownKey("x\"y"), seq: 12)
        #expect(frame == #"{"type":"error","code":"unknown_key","message":"Unknown key \"x\"y\"","seq":12}"#)
        #expect(CalcFrames.hello(session: "ab") == #"{"type":"hello","session":"ab"}"#)
        let body = String(decoding: CalcFrames.apiError(.unknownKey("q"), index: 3), as: UTF8.self)
        #expect(body == #"{"error":{"code":"unknown_key","message":"Unknown key \"q\"","index":3}}"#)
    }

    @Test func displayFramesKeepProtocolOrder() {
        var calculator = Calculator()
        _ = calculator.press(.digit(7))
        let display = calculator.press(.digit(2))
        #expect(CalcFrames.display(display, seq: 3) == #"{"type":"display","seq":3,"display":"72","expression":"","error":null,"message":null,"memory":false,"mode":"basic","angle":"rad","history":[]}"#)
    }
}
