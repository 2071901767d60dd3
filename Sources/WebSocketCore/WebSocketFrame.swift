/// A frame opcode (RFC 6455 §5.2). Reserved values never get this far: the parser fails on them.
public enum WebSocketOpcode: UInt8, Sendable, Equatable, Hashable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Control frames have the high opcode bit set (RFC 6455 §5.5).
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// One decoded frame, payload already unmasked.
public struct WebSocketFrame: Sendable, Equatable {
    public var fin: Bool
    /// RSV1: "compressed" on the first frame of a permessage-deflate message (RFC 7692 §6).
    public var rsv1: Bool
    public var opcode: WebSocketOpcode
    public var payload: [UInt8]

    public init(fin: Bool = true, rsv1: Bool = false, opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.rsv1 = rsv1
        self.opcode = opcode
        self.payload = payload
    }
}

/// Which end of the connection we are; decides who masks (RFC 6455 §5.3).
public enum WebSocketRole: Sendable, Equatable {
    case server
    case client
}
