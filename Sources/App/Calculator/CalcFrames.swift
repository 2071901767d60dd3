import Server
import CalculatorEngine

/// The JSON text the calculator sends (docs/PROTOCOL.md, `/ws/calc` and `/api/calc`),
/// written by hand: one pass into a byte buffer, no reflection, fields in protocol order.
enum CalcFrames {
    /// `{"type":"display","seq":…,"display":…,"expression":…,"error":…,"message":…,"memory":…,
    /// "mode":…,"angle":…,"history":[{"expression":…,"result":…},…]}`; `seq` left out when nil
    /// (the `/api/calc` answer).
    static func display(_ display: CalculatorDisplay, seq: Int?) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(160 + display.history.count * 48)
        out.append(contentsOf: #"{"type":"display""#.utf8)
        if let seq {
            out.append(contentsOf: #","seq":"#.utf8)
            appendInteger(seq, to: &out)
        }
        out.append(contentsOf: #","display":"#.utf8)
        // While an error shows, the display carries its message, as a calculator's screen does.
        appendString(display.error.map(CalculatorKeyWire.message(for:)) ?? display.display, to: &out)
        out.append(contentsOf: #","expression":"#.utf8)
        appendString(display.expression, to: &out)
        if let error = display.error {
            out.append(contentsOf: #","error":"#.utf8)
            appendString(error.rawValue, to: &out)
            out.append(contentsOf: #","message":"#.utf8)
            appendString(CalculatorKeyWire.message(for: error), to: &out)
        } else {
            out.append(contentsOf: #","error":null,"message":null"#.utf8)
        }
        out.append(contentsOf: display.memory ? #","memory":true"#.utf8 : #","memory":false"#.utf8)
        out.append(contentsOf: #","mode":"#.utf8)
        appendString(display.mode.rawValue, to: &out)
        out.append(contentsOf: #","angle":"#.utf8)
        appendString(display.angle.rawValue, to: &out)
        out.append(contentsOf: #","history":["#.utf8)
        for (index, entry) in display.history.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"expression":"#.utf8)
            appendString(entry.expression, to: &out)
            out.append(contentsOf: #","result":"#.utf8)
            appendString(entry.result, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// `{"type":"hello","session":"<id>"}`.
    static func hello(session: String) -> String {
        var out: [UInt8] = Array(#"{"type":"hello","session":"#.utf8)
        appendString(session, to: &out)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// `{"type":"error","code":…,"message":…}`, plus `"seq"` when the offending message
    /// carried a valid one (so a page can drop that queued key).
    static func error(_ error: CalcProtocolError, seq: Int? = nil) -> String {
        var out: [UInt8] = Array(#"{"type":"error","code":"#.utf8)
        appendString(error.code, to: &out)
        out.append(contentsOf: #","message":"#.utf8)
        appendString(error.message, to: &out)
        if let seq {
            out.append(contentsOf: #","seq":"#.utf8)
            appendInteger(seq, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The body of an `/api/calc` error: `{"error":{"code":…,"message":…[,"index":n]}}`.
    static func apiError(_ error: CalcProtocolError, index: Int? = nil) -> [UInt8] {
        var out: [UInt8] = Array(#"{"error":{"code":"#.utf8)
        appendString(error.code, to: &out)
        out.append(contentsOf: #","message":"#.utf8)
        appendString(error.message, to: &out)
        if let index {
            out.append(contentsOf: #","index":"#.utf8)
            appendInteger(index, to: &out)
        }
        out.append(contentsOf: "}}".utf8)
        return out
    }

    /// A JSON string literal (RFC 8259 §7): `"` and `\` escaped, control characters as
    /// `\n`-style or `\u00XX` escapes, everything else as UTF-8.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                        hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    static func appendInteger(_ value: Int, to out: inout [UInt8]) {
        out.append(contentsOf: String(value).utf8)
    }
}
