/// Writes JSON text in one pass, members in the order they are written (protocol order, as
/// docs/PROTOCOL.md shows them). Strings are escaped as `JSON.stringify` and the canonical
/// form escape them; separators are placed by the writer.
///
///     var json = JSONWriter()
///     json.beginObject()
///     json.key("type"); json.string("hello")
///     json.endObject()
///     json.text  // {"type":"hello"}
public struct JSONWriter {
    // The writing methods are inlinable: each frame of the calculator's key path is written
    // here, and a call across the module boundary per field cost ~6% of a key press (callgrind).
    public var bytes: [UInt8] = []
    /// Whether the next member or element needs a comma before it.
    @usableFromInline var needsComma = false

    public init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    @inlinable
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    @inlinable
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    @inlinable
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    @inlinable
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member's name; its value is the next thing written. A literal name is written as it
    /// is: it must need no escaping (plain ASCII letters, as every protocol field is).
    @inlinable
    public mutating func key(_ name: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A member's name from data, escaped.
    @inlinable
    public mutating func key(escaping name: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        Self.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    @inlinable
    public mutating func string(_ value: String) {
        separate()
        Self.appendString(value, to: &bytes)
        needsComma = true
    }

    @inlinable
    public mutating func integer(_ value: Int) {
        separate()
        Self.appendInteger(Int64(value), to: &bytes)
        needsComma = true
    }

    @inlinable
    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
        needsComma = true
    }

    @inlinable
    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// A whole value in canonical form (sorted keys).
    public mutating func value(_ value: JSONValue) {
        separate()
        value.appendCanonical(to: &bytes)
        needsComma = true
    }

    @inlinable
    mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    @usableFromInline static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The decimal digits of `value`, with `-` when negative.
    @inlinable
    public static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[index]) }
        }
    }

    /// A JSON string literal (RFC 8259 §7) escaped as `JSON.stringify` does: `"` `\` and
    /// `\b \f \n \r \t` by name, other control characters as `\u00xx`, everything else as UTF-8.
    @inlinable
    public static func appendString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        // Native strings are contiguous UTF-8: copy runs that need no escape in one go.
        string.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == 0x5c else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(byte, to: &out)
                runStart = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    @inlinable
    static func appendEscape(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(0x5c)
        switch byte {
        case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
        case 0x5c: out.append(0x5c)
        case 0x08: out.append(UInt8(ascii: "b"))
        case 0x0c: out.append(UInt8(ascii: "f"))
        case 0x0a: out.append(UInt8(ascii: "n"))
        case 0x0d: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        default:
            out.append(UInt8(ascii: "u"))
            out.append(UInt8(ascii: "0"))
            out.append(UInt8(ascii: "0"))
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0f)])
        }
    }
}
