import Compression
import Locking

/// A server message encoded once and sent as the same bytes to many connections.
///
/// `plain` is the unmasked frame. The compressed variant (RFC 7692) is made on first use
/// with a fresh compressor per window size and no history, so it holds no back-reference to
/// earlier messages and is valid for every client that negotiated permessage-deflate with at
/// least that window. Thread-safe: the lazily made variants sit behind a mutex.
public final class BroadcastFrame: Sendable {
    public let opcode: WebSocketOpcode
    public let payload: [UInt8]
    /// The unmasked, uncompressed frame.
    public let plain: [UInt8]
    private let compressed: Lock<[Int: [UInt8]]> = Lock([:])

    public init(text: String) {
        opcode = .text
        payload = Array(text.utf8)
        plain = WebSocketFrameEncoder.encode(opcode: .text, payload: payload)
    }

    public init(binary: [UInt8]) {
        opcode = .binary
        payload = binary
        plain = WebSocketFrameEncoder.encode(opcode: .binary, payload: payload)
    }

    /// The compressed frame (RSV1 set) for a window of `windowBits` (8...15), or nil when
    /// compression fails or does not make the frame smaller.
    public func compressedFrame(windowBits: Int, level: Int = 6) -> [UInt8]? {
        let bits = max(8, min(15, windowBits))
        if let frame = compressed.withLock({ $0[bits] }) { return frame.isEmpty ? nil : frame }
        var frame: [UInt8] = []
        if let stream = try? DeflateStream(windowBits: bits, level: level),
           let body = try? stream.compressMessage(payload), body.count < payload.count {
            frame = WebSocketFrameEncoder.encode(opcode: opcode, rsv1: true, payload: body)
        }
        // Two threads may race to build it; both results are identical, so last write wins.
        compressed.withLock { $0[bits] = frame }
        return frame.isEmpty ? nil : frame
    }
}
