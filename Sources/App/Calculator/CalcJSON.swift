import Server
import JSON

/// How the calculator reads JSON: the one JSON module, at most `maxDepth` levels deep.
enum CalcJSON {
    static let maxDepth = 16

    static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try JSONValue.parse(text, maxDepth: maxDepth)
    }

    /// A body as text first: bytes that are not UTF-8 read as U+FFFD, as in a text frame's
    /// string, so they end as an unknown key rather than unreadable JSON.
    static func parse(_ body: [UInt8]) throws(JSONParseError) -> JSONValue {
        try JSONValue.parse(String(decoding: body, as: UTF8.self), maxDepth: maxDepth)
    }
}

extension JSONValue {
    /// A positive integer written without fraction or exponent, at most 2^53 − 1 (exact in
    /// every JSON reader); nil for anything else. The rule for `seq`.
    var positiveInteger: Int? {
        guard case .int(let value) = self, value > 0, value <= (1 << 53) - 1 else { return nil }
        return Int(value)
    }
}
