@testable import WebSocketCore

/// A small seeded generator for reproducible randomized tests (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func hex(_ text: String) -> [UInt8] {
    text.split(separator: " ").map { UInt8($0, radix: 16)! }
}

let sampleMask: (UInt8, UInt8, UInt8, UInt8) = (0x37, 0xFA, 0x21, 0x3D)

/// A client frame (masked), as a browser would send it.
func clientFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false) -> [UInt8] {
    WebSocketFrameEncoder.encode(opcode: opcode, fin: fin, rsv1: rsv1, payload: payload, maskKey: sampleMask)
}

func clientFrame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> [UInt8] {
    clientFrame(opcode, Array(text.utf8), fin: fin)
}

/// Decodes server output frames (unmasked) for assertions.
func serverFrames(in actions: [WebSocketConnection.Action]) -> [WebSocketFrame] {
    var parser = WebSocketFrameParser(role: .client, maxMessageSize: .max, allowsCompressedMessages: true)
    for case .write(let bytes) in actions { parser.append(bytes) }
    var frames: [WebSocketFrame] = []
    while let frame = try? parser.next() { frames.append(frame) }
    return frames
}

/// The close code in the first close frame among the actions' writes.
func sentCloseCode(_ actions: [WebSocketConnection.Action]) -> UInt16? {
    guard let close = serverFrames(in: actions).first(where: { $0.opcode == .close }) else { return nil }
    guard close.payload.count >= 2 else { return 0 }
    return UInt16(close.payload[0]) << 8 | UInt16(close.payload[1])
}

func parseAll(_ bytes: [UInt8], role: WebSocketRole, deflate: Bool = false, maxMessageSize: Int = 1 << 20)
    throws(WebSocketProtocolError) -> [WebSocketFrame] {
    var parser = WebSocketFrameParser(role: role, maxMessageSize: maxMessageSize, allowsCompressedMessages: deflate)
    parser.append(bytes)
    var frames: [WebSocketFrame] = []
    while let frame = try parser.next() { frames.append(frame) }
    return frames
}
