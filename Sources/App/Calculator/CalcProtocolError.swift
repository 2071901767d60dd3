import Server
/// What is wrong with a calculator message, as a stable code and its English text
/// (`error` frames on `/ws/calc`, `{"error":…}` bodies on `/api/calc`). A message with an
/// error changes nothing.
enum CalcProtocolError: Equatable, Sendable {
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

    var code: String {
        switch self {
        case .badJSON: "bad_json"
        case .badRequest: "bad_request"
        case .unknownType: "unknown_type"
        case .unknownKey: "unknown_key"
        case .tooLarge: "too_large"
        case .unknownSession: "unknown_session"
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
        }
    }

    /// Client text echoed in a message stays short.
    private static func clipped(_ text: String) -> String {
        text.count <= 32 ? text : String(text.prefix(32)) + "…"
    }
}
