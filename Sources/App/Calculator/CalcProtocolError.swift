import Server
/// What is wrong with a calculator message, as a stable code and its English text
/// (`error` frames on `/ws/calc`, `{"error":…}` bodies on `/api/calc`). A message with an
/// error changes nothing.
enum CalcProtocolError: Error, Equatable, Sendable {
    /// Not JSON, or nested too deep.
    case badJSON
    /// JSON, but a field is missing or of the wrong kind (`seq`, `mode`, `unit`, `keys`…).
    case badRequest(String)
    /// `type` names no calculator message.
    case unknownType(String)
    /// A key string not in the key table.
    case unknownKey(String)
    /// A message or key list over the limit.
    case tooLarge(String)
    /// `resume` names no kept session (never existed, expired, or evicted).
    case unknownSession
    /// A digits request past the limits (count over 1,000, a position past 20,000).
    case outOfRange(String)
    /// Digits asked for while the calculator shows an error.
    case noResult
    /// Digits of a value whose recipe was too large to keep, or too costly to recompute there.
    case digitsUnavailable(String)
    /// A digits request while this socket's previous one is still computed.
    case busy
    /// The session's digit budget is spent for now; `message` says when it refills.
    case rateLimited(String)

    var code: String {
        switch self {
        case .badJSON: "bad_json"
        case .badRequest: "bad_request"
        case .unknownType: "unknown_type"
        case .unknownKey: "unknown_key"
        case .tooLarge: "too_large"
        case .unknownSession: "unknown_session"
        case .outOfRange: "out_of_range"
        case .noResult: "no_result"
        case .digitsUnavailable: "digits_unavailable"
        case .busy: "busy"
        case .rateLimited: "rate_limited"
        }
    }

    var message: String {
        switch self {
        case .badJSON: "The message is not valid JSON"
        case .badRequest(let detail): detail
        case .unknownType(let type): "Unknown message type \"\(Self.clipped(type))\""
        case .unknownKey(let key): "Unknown key \"\(Self.clipped(key))\""
        case .tooLarge(let detail): detail
        case .unknownSession: "That session is unknown or has expired; this connection keeps its new session"
        case .outOfRange(let detail): detail
        case .noResult: "The calculator shows an error, not a number"
        case .digitsUnavailable(let detail): detail
        case .busy: "The previous digits request is still being computed"
        case .rateLimited(let detail): detail
        }
    }

    /// Client text echoed in a message stays short.
    private static func clipped(_ text: String) -> String {
        text.count <= 32 ? text : String(text.prefix(32)) + "…"
    }
}
