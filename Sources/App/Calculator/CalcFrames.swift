import Server
import CalculatorEngine
import JSON

/// The JSON text the calculator sends (docs/PROTOCOL.md, `/ws/calc` and `/api/calc`),
/// written with the JSON module's writer in one pass, fields in protocol order.
enum CalcFrames {
    /// `{"type":"display","seq":…,"display":…,"expression":…,"error":…,"message":…,"memory":…,
    /// "mode":…,"angle":…,"history":[{"expression":…,"result":…},…]}`; `seq` left out when nil
    /// (the `/api/calc` answer).
    static func display(_ display: CalculatorDisplay, seq: Int?) -> String {
        var json = JSONWriter(reservingCapacity: 160 + display.history.count * 48)
        json.beginObject()
        json.key("type"); json.string("display")
        if let seq { json.key("seq"); json.integer(seq) }
        // While an error shows, the display carries its message, as a calculator's screen does.
        json.key("display"); json.string(display.error.map(CalculatorKeyWire.message(for:)) ?? display.display)
        json.key("expression"); json.string(display.expression)
        if let error = display.error {
            json.key("error"); json.string(error.rawValue)
            json.key("message"); json.string(CalculatorKeyWire.message(for: error))
        } else {
            json.key("error"); json.null()
            json.key("message"); json.null()
        }
        json.key("memory"); json.bool(display.memory)
        json.key("mode"); json.string(display.mode.rawValue)
        json.key("angle"); json.string(display.angle.rawValue)
        json.key("history")
        json.beginArray()
        for entry in display.history {
            json.beginObject()
            json.key("expression"); json.string(entry.expression)
            json.key("result"); json.string(entry.result)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.text
    }

    /// `{"type":"hello","session":"<id>"}`.
    static func hello(session: String) -> String {
        var json = JSONWriter(reservingCapacity: 64)
        json.beginObject()
        json.key("type"); json.string("hello")
        json.key("session"); json.string(session)
        json.endObject()
        return json.text
    }

    /// `{"type":"error","code":…,"message":…}`, plus `"seq"` when the offending message
    /// carried a valid one (so a page can drop that queued key).
    static func error(_ error: CalcProtocolError, seq: Int? = nil) -> String {
        var json = JSONWriter(reservingCapacity: 96)
        json.beginObject()
        json.key("type"); json.string("error")
        json.key("code"); json.string(error.code)
        json.key("message"); json.string(error.message)
        if let seq { json.key("seq"); json.integer(seq) }
        json.endObject()
        return json.text
    }

    /// The body of an `/api/calc` error: `{"error":{"code":…,"message":…[,"index":n]}}`.
    static func apiError(_ error: CalcProtocolError, index: Int? = nil) -> [UInt8] {
        var json = JSONWriter(reservingCapacity: 96)
        json.beginObject()
        json.key("error")
        json.beginObject()
        json.key("code"); json.string(error.code)
        json.key("message"); json.string(error.message)
        if let index { json.key("index"); json.integer(index) }
        json.endObject()
        json.endObject()
        return json.bytes
    }
}
