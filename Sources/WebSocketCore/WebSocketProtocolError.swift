/// Why a connection fails (RFC 6455 §7.1.7), each mapping to the close code we send.
public enum WebSocketProtocolError: Error, Equatable, Sendable, Hashable {
    /// RSV2/RSV3 set, or RSV1 without a negotiated extension or on a control/continuation frame.
    case reservedBitsSet
    /// Opcodes 3–7 and 0xB–0xF (RFC 6455 §5.2).
    case reservedOpcode(UInt8)
    /// A client frame without a mask (RFC 6455 §5.1).
    case unmaskedClientFrame
    /// A server frame with a mask (RFC 6455 §5.1).
    case maskedServerFrame
    /// A control frame longer than 125 bytes (RFC 6455 §5.5).
    case controlFrameTooLong
    /// A control frame without FIN (RFC 6455 §5.5).
    case fragmentedControlFrame
    /// A 64-bit length with the most significant bit set (RFC 6455 §5.2).
    case invalidLength
    /// A continuation frame with no message in progress (RFC 6455 §5.4).
    case unexpectedContinuation
    /// A new data frame while a fragmented message is still open (RFC 6455 §5.4).
    case expectedContinuation
    /// A message (or its inflated form) larger than the configured limit.
    case messageTooBig
    /// Text that is not UTF-8 (RFC 6455 §8.1), also a close reason.
    case invalidUTF8
    /// A close payload of one byte (RFC 6455 §5.5.1).
    case invalidClosePayload
    /// A close code a peer must not send (RFC 6455 §7.4).
    case invalidCloseCode(UInt16)
    /// A compressed message that does not inflate (RFC 7692 §8.2.3).
    case invalidCompressedData

    /// The status code to send in our close frame.
    public var closeCode: WebSocketCloseCode {
        switch self {
        case .messageTooBig: .messageTooBig
        case .invalidUTF8: .invalidFramePayloadData
        default: .protocolError
        }
    }
}
