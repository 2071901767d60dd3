import Foundation
import JSON
import Testing

@Suite struct JSONWriterTests {
    @Test(arguments: ["", "plain", "quote \" and backslash \\", "controls \n\r\t\u{0}\u{8}\u{c}\u{1f}", "π ÷ 一等奖 😀", "\u{7f}"])
    func writesStringsThatAnyReaderReadsBack(_ text: String) throws {
        var out: [UInt8] = []
        JSONWriter.appendString(text, to: &out)
        let decoded = try JSONSerialization.jsonObject(with: Data(out), options: .fragmentsAllowed) as? String
        #expect(decoded == text)
        #expect(try JSONValue.parse(out) == .string(text))
    }

    @Test func writesMembersInTheOrderGivenWithSeparators() {
        var json = JSONWriter()
        json.beginObject()
        json.key("z"); json.integer(-12)
        json.key("a"); json.null()
        json.key("list")
        json.beginArray()
        json.bool(true)
        json.beginObject(); json.endObject()
        json.string("x\"y")
        json.beginArray(); json.integer(0); json.endArray()
        json.endArray()
        json.key(escaping: "dynamic \"key\""); json.value(.object(["b": .int(1), "a": .array([])]))
        json.endObject()
        #expect(json.text == #"{"z":-12,"a":null,"list":[true,{},"x\"y",[0]],"dynamic \"key\"":{"a":[],"b":1}}"#)
    }

    @Test(arguments: [Int64.min, -1, 0, 7, 1_234_567_890, Int64.max])
    func writesIntegersInDecimal(_ value: Int64) {
        var out: [UInt8] = []
        JSONWriter.appendInteger(value, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == String(value))
    }
}
