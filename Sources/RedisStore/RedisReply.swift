/// One reply from Redis (RESP2), copied out of hiredis's reply tree so it can outlive it
/// and cross threads. An error reply at the top level of a command arrives as
/// `RedisError.server`; inside an array (a script's table) it stays `.error`.
public enum RedisReply: Sendable, Equatable {
    case status(String)
    case error(String)
    case integer(Int64)
    case bulk([UInt8])
    case null
    case array([RedisReply])

    /// A bulk or status reply as UTF-8 text (invalid bytes repaired); nil for other kinds.
    public var string: String? {
        switch self {
        case .bulk(let bytes): String(decoding: bytes, as: UTF8.self)
        case .status(let text): text
        default: nil
        }
    }

    /// An integer reply, or a bulk/status reply holding a decimal integer.
    public var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .bulk, .status: string.flatMap { Int64($0) }
        default: nil
        }
    }

    /// The elements of an array reply.
    public var array: [RedisReply]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    public var isNull: Bool { self == .null }
}

extension RedisReply: CustomStringConvertible {
    /// For logs and test failures; a bulk is shown as text when it is printable.
    public var description: String {
        switch self {
        case .status(let text): "+\(text)"
        case .error(let text): "-\(text)"
        case .integer(let value): ":\(value)"
        case .bulk(let bytes): "\"\(String(decoding: bytes, as: UTF8.self))\""
        case .null: "(nil)"
        case .array(let elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        }
    }
}
