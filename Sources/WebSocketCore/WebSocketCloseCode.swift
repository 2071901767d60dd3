/// A close status code (RFC 6455 §7.4).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let normalClosure = WebSocketCloseCode(1000)
    public static let goingAway = WebSocketCloseCode(1001)
    public static let protocolError = WebSocketCloseCode(1002)
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// Never sent on the wire: "no status code was present" (RFC 6455 §7.4.1).
    public static let noStatusReceived = WebSocketCloseCode(1005)
    /// Never sent on the wire: "closed without a close frame".
    public static let abnormalClosure = WebSocketCloseCode(1006)
    public static let invalidFramePayloadData = WebSocketCloseCode(1007)
    public static let policyViolation = WebSocketCloseCode(1008)
    public static let messageTooBig = WebSocketCloseCode(1009)
    public static let mandatoryExtension = WebSocketCloseCode(1010)
    public static let internalError = WebSocketCloseCode(1011)
    public static let serviceRestart = WebSocketCloseCode(1012)
    public static let tryAgainLater = WebSocketCloseCode(1013)
    public static let badGateway = WebSocketCloseCode(1014)

    /// Whether a peer may send this code in a close frame (RFC 6455 §7.4.1, §7.4.2 and the IANA
    /// registry): 1000–1003, 1007–1014 and the application/private range 3000–4999.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    public var description: String { String(rawValue) }
}
