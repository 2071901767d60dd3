/// A JSON value as records need it: integers stay exact, objects keep every key.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    /// A number with a fraction or exponent, or outside Int64; records never contain one.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var intValue: Int64? { if case .int(let i) = self { return i }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }
    public var isNull: Bool { self == .null }
}

extension JSONValue {
    /// `canon(x)` of docs/FAIRNESS.md §2: sorted keys, no whitespace, JSON.stringify escaping.
    public var canonicalBytes: [UInt8] {
        var out = [UInt8]()
        appendCanonical(to: &out)
        return out
    }

    public var canonicalString: String { String(decoding: canonicalBytes, as: UTF8.self) }

    func appendCanonical(to out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .int(let i): Self.appendInteger(i, to: &out)
        case .double(let d): out += Array("\(d)".utf8)
        case .string(let s): Self.appendString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (position, item) in items.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                item.appendCanonical(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // Code-point order, as Python's sort_keys and a JS sort of ASCII keys.
            let keys = members.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) { $0.value < $1.value } }
            for (position, key) in keys.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                Self.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.appendCanonical(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
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

    static func appendString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [0x5c, 0x22]
            case 0x5c: out += [0x5c, 0x5c]
            case 0x08: out += [0x5c, UInt8(ascii: "b")]
            case 0x0c: out += [0x5c, UInt8(ascii: "f")]
            case 0x0a: out += [0x5c, UInt8(ascii: "n")]
            case 0x0d: out += [0x5c, UInt8(ascii: "r")]
            case 0x09: out += [0x5c, UInt8(ascii: "t")]
            case 0x00..<0x20:
                out += Array("\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0f)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Why a JSON text could not be read.
public struct JSONParseError: Error, Equatable, Sendable {
    public let offset: Int
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259), nesting at most 64 deep.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.position == bytes.count else { throw JSONParseError(offset: parser.position) }
        return value
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func skipSpace() {
        while position < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[position]) { position += 1 }
    }

    func fail() -> JSONParseError { JSONParseError(offset: position) }

    mutating func expect(_ literal: String) throws(JSONParseError) {
        for byte in literal.utf8 {
            guard position < bytes.count, bytes[position] == byte else { throw fail() }
            position += 1
        }
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < 64 else { throw fail() }
        skipSpace()
        guard position < bytes.count else { throw fail() }
        switch bytes[position] {
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "["):
            position += 1
            var items = [JSONValue]()
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
            while true {
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard position < bytes.count else { throw fail() }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
                throw fail()
            }
        case UInt8(ascii: "{"):
            position += 1
            var members = [String: JSONValue]()
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail() }
                let key = try string()
                skipSpace()
                try expect(":")
                members[key] = try value(depth: depth + 1)
                skipSpace()
                guard position < bytes.count else { throw fail() }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
                throw fail()
            }
        default: return try number()
        }
    }

    mutating func number() throws(JSONParseError) -> JSONValue {
        let start = position
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digitsStart = position
        while position < bytes.count, (0x30...0x39).contains(bytes[position]) { position += 1 }
        guard position > digitsStart else { throw fail() }
        if bytes[digitsStart] == 0x30, position - digitsStart > 1 { throw fail() }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            let fraction = position
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) { position += 1 }
            guard position > fraction else { throw fail() }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            let exponent = position
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) { position += 1 }
            guard position > exponent else { throw fail() }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .int(integer) }
        // RFC 8259 §6: a number too large for a double (`1e999`) is refused, not turned into `inf`.
        guard let double = Double(text), double.isFinite else { throw fail() }
        return .double(double)
    }

    mutating func string() throws(JSONParseError) -> String {
        position += 1
        var out = [UInt8]()
        while true {
            guard position < bytes.count else { throw fail() }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else { throw fail() }
                return text
            case 0x5c:
                guard position < bytes.count else { throw fail() }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), 0x5c, UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0c)
                case UInt8(ascii: "n"): out.append(0x0a)
                case UInt8(ascii: "r"): out.append(0x0d)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xd800..<0xdc00).contains(scalar), position + 1 < bytes.count,
                       bytes[position] == 0x5c, bytes[position + 1] == UInt8(ascii: "u") {
                        position += 2
                        let low = try hex4()
                        guard (0xdc00..<0xe000).contains(low) else { throw fail() }
                        scalar = 0x10000 + (scalar - 0xd800) << 10 + (low - 0xdc00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail() }
                    out += Array(String(Character(unicode)).utf8)
                default: throw fail()
                }
            case 0x00..<0x20: throw fail()
            default: out.append(byte)
            }
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count,
              let digits = Hex.decode(String(decoding: bytes[position..<position + 4], as: UTF8.self)) else { throw fail() }
        position += 4
        return UInt32(digits[0]) << 8 | UInt32(digits[1])
    }
}
