/// Why an opening handshake fails (RFC 6455 §4), with the HTTP status a server answers.
public enum WebSocketHandshakeError: Error, Equatable, Sendable, Hashable {
    case methodNotAllowed
    case unsupportedHTTPVersion
    /// No `Upgrade: websocket` token.
    case missingUpgradeHeader
    /// No `upgrade` token in `Connection`.
    case missingConnectionUpgrade
    /// `Sec-WebSocket-Key` missing, repeated, or not base64 of 16 bytes.
    case invalidKey
    /// `Sec-WebSocket-Version` missing or not 13.
    case unsupportedVersion
    /// A browser Origin that is neither the Host nor allowed (cross-site WebSocket hijacking).
    case forbiddenOrigin
    /// Client side: the server's response is not 101.
    case unexpectedStatus(Int)
    /// Client side: the response head is malformed or too large.
    case malformedResponse
    /// Client side: `Sec-WebSocket-Accept` does not match our key.
    case invalidAccept
    /// Client side: an extension we did not offer or cannot accept.
    case unsupportedExtension
    /// Client side: a subprotocol we did not offer.
    case unexpectedSubprotocol

    /// The HTTP status a server answers with.
    public var status: Int {
        switch self {
        case .methodNotAllowed: 405
        case .unsupportedVersion: 426
        case .forbiddenOrigin: 403
        case .unsupportedHTTPVersion: 505
        default: 400
        }
    }
}
