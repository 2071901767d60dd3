import Server
/// A JSON value as read from a calculator message (RFC 8259). Numbers keep their text so
/// `1` and `1.0` stay apart (`seq` must be an integer literal).
enum CalcJSON: Equatable {
    case object([String: CalcJSON])
    case array([CalcJSON])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    subscript(key: String) -> CalcJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A positive integer written without fraction or exponent, at most 2^53 − 1 (exact in
    /// every JSON reader); nil for anything else.
    var positiveInteger: Int? {
        guard case .number(let text) = self, !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }),
              text.utf8.count <= 16, let value = Int(text), value > 0, value <= (1 << 53) - 1 else { return nil }
        return value
    }
}

/// Why a message is not JSON the calculator reads.
enum CalcJSONError: Error, Equatable {
    case malformed
    case tooDeep
}

/// A small strict JSON reader for calculator messages: one value, UTF-8 input already
/// validated by the WebSocket codec, nesting at most `maxDepth` deep. Duplicate object keys:
/// the last one wins.
struct CalcJSONReader {
    static let maxDepth = 16

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ text: String) throws(CalcJSONError) -> CalcJSON {
        var text = text
        return try text.withUTF8 { buffer in Result { () throws(CalcJSONError) in try parse(buffer) } }.get()
    }

    static func parse(_ bytes: [UInt8]) throws(CalcJSONError) -> CalcJSON {
        try bytes.withUnsafeBufferPointer { buffer in Result { () throws(CalcJSONError) in try parse(buffer) } }.get()
    }

    static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(CalcJSONError) -> CalcJSON {
        var reader = CalcJSONReader(buffer)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == buffer.count else { throw .malformed }
        return value
    }

    private mutating func value(depth: Int) throws(CalcJSONError) -> CalcJSON {
        guard index < bytes.count else { throw .malformed }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            guard depth < Self.maxDepth else { throw .tooDeep }
            return try object(depth: depth + 1)
        case UInt8(ascii: "["):
            guard depth < Self.maxDepth else { throw .tooDeep }
            return try array(depth: depth + 1)
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            return .number(try number())
        }
    }

    private mutating func object(depth: Int) throws(CalcJSONError) -> CalcJSON {
        index += 1
        var members: [String: CalcJSON] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw .malformed }
            let key = try string()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw .malformed }
            skipWhitespace()
            members[key] = try value(depth: depth)
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "}")) else { throw .malformed }
            return .object(members)
        }
    }

    private mutating func array(depth: Int) throws(CalcJSONError) -> CalcJSON {
        index += 1
        var elements: [CalcJSON] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "]")) else { throw .malformed }
            return .array(elements)
        }
    }

    /// RFC 8259 §7: escapes, no raw control characters, `\u` surrogate pairs joined.
    private mutating func string() throws(CalcJSONError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw .malformed }
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw .malformed }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw .malformed
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw .malformed }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw .malformed
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw .malformed }
                    scalars.append(contentsOf: UTF8.encode(scalar)!)
                default:
                    throw .malformed
                }
            default:
                guard byte >= 0x20 else { throw .malformed }
                scalars.append(byte)
            }
        }
        throw .malformed
    }

    private mutating func hex4() throws(CalcJSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw .malformed }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .malformed
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() throws(CalcJSONError) -> String {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw .malformed }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw .malformed }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw .malformed }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func literal(_ word: StaticString) throws(CalcJSONError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw .malformed }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] { throw .malformed }
        index += count
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}
