/// An incremental frame decoder (RFC 6455 §5.2): append bytes as they arrive, then call `next()`
/// until it returns nil.
///
/// It enforces every framing rule the moment the header bytes that decide it are in: reserved
/// bits and opcodes, masking direction, control frame rules, fragmentation order and the message
/// size limit (an oversized frame fails before any of its payload is buffered). After an error
/// the parser stays failed and throws the same error again.
public struct WebSocketFrameParser: Sendable {
    public let role: WebSocketRole
    /// The largest message (sum of its frames' payloads, as sent on the wire) we accept.
    public var maxMessageSize: Int
    /// Whether RSV1 may be set on the first frame of a data message (permessage-deflate).
    public var allowsCompressedMessages: Bool

    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var failure: WebSocketProtocolError?
    /// Whether a fragmented data message is open (we saw a data frame without FIN).
    private var messageInProgress = false
    /// Payload bytes of the open message's earlier frames.
    private var messageLength = 0
    /// The header of a frame whose payload is still arriving.
    private var partial: (opcode: WebSocketOpcode, rsv1: Bool, headerLength: Int, length: Int,
                          maskKey: (UInt8, UInt8, UInt8, UInt8)?)?

    public init(role: WebSocketRole, maxMessageSize: Int = 1 << 20, allowsCompressedMessages: Bool = false) {
        self.role = role
        self.maxMessageSize = maxMessageSize
        self.allowsCompressedMessages = allowsCompressedMessages
    }

    /// Bytes received but not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Whether a fragmented message has started and not yet finished.
    public var isInsideFragmentedMessage: Bool { messageInProgress }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil when more bytes are needed.
    public mutating func next() throws(WebSocketProtocolError) -> WebSocketFrame? {
        if let failure { throw failure }
        do {
            return try decode()
        } catch {
            failure = error
            buffer = []
            readIndex = 0
            throw error
        }
    }

    private mutating func compact() {
        if readIndex == buffer.count {
            // Let go of a large buffer once it is drained, so idle connections stay small.
            if buffer.capacity > 64 * 1024 { buffer = [] } else { buffer.removeAll(keepingCapacity: true) }
            readIndex = 0
        } else if readIndex > 4096 && readIndex * 2 > buffer.count {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }

    /// The header of a frame whose payload is still arriving (cheap: copies nothing).
    public var partialFrameHeader: (opcode: WebSocketOpcode, rsv1: Bool)? {
        guard failure == nil, let partial else { return nil }
        return (partial.opcode, partial.rsv1)
    }

    /// The payload received so far of a frame still arriving, from `offset` on, unmasked; nil
    /// when no frame header is pending. Lets a text frame be validated before it completes.
    public func partialPayload(from offset: Int) -> (opcode: WebSocketOpcode, rsv1: Bool, bytes: [UInt8])? {
        guard failure == nil, let partial else { return nil }
        let start = readIndex + partial.headerLength + offset
        let end = min(buffer.count, readIndex + partial.headerLength + partial.length)
        guard start <= end else { return nil }
        var bytes = Array(buffer[start..<end])
        if let key = partial.maskKey {
            let keyBytes = [key.0, key.1, key.2, key.3]
            for index in bytes.indices { bytes[index] ^= keyBytes[(offset + index) & 3] }
        }
        return (partial.opcode, partial.rsv1, bytes)
    }

    private mutating func decode() throws(WebSocketProtocolError) -> WebSocketFrame? {
        partial = nil
        let available = buffer.count - readIndex
        guard available >= 2 else { return nil }
        let first = buffer[readIndex]
        let second = buffer[readIndex + 1]
        let fin = first & 0x80 != 0
        let rsv1 = first & 0x40 != 0
        guard first & 0x30 == 0 else { throw .reservedBitsSet }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else { throw .reservedOpcode(first & 0x0F) }
        let masked = second & 0x80 != 0
        let shortLength = Int(second & 0x7F)

        switch role {
        case .server where !masked: throw .unmaskedClientFrame  // RFC 6455 §5.1
        case .client where masked: throw .maskedServerFrame
        default: break
        }
        if opcode.isControl {
            // RFC 6455 §5.5: control frames are never fragmented and carry at most 125 bytes.
            guard fin else { throw .fragmentedControlFrame }
            guard shortLength <= 125 else { throw .controlFrameTooLong }
            guard !rsv1 else { throw .reservedBitsSet }
        } else if opcode == .continuation {
            guard messageInProgress else { throw .unexpectedContinuation }
            guard !rsv1 else { throw .reservedBitsSet }  // RFC 7692 §6.1: RSV1 only on the first frame
        } else {
            guard !messageInProgress else { throw .expectedContinuation }
            guard !rsv1 || allowsCompressedMessages else { throw .reservedBitsSet }
        }

        let lengthBytes = shortLength == 126 ? 2 : (shortLength == 127 ? 8 : 0)
        let headerLength = 2 + lengthBytes + (masked ? 4 : 0)
        guard available >= headerLength else { return nil }
        var length: Int
        switch lengthBytes {
        case 2:
            length = Int(buffer[readIndex + 2]) << 8 | Int(buffer[readIndex + 3])
        case 8:
            var value: UInt64 = 0
            for index in 0..<8 { value = value << 8 | UInt64(buffer[readIndex + 2 + index]) }
            guard value & (1 << 63) == 0 else { throw .invalidLength }  // RFC 6455 §5.2
            guard value <= UInt64(Int.max) else { throw .invalidLength }
            length = Int(value)
        default:
            length = shortLength
        }
        if !opcode.isControl {
            guard length <= maxMessageSize - messageLength else { throw .messageTooBig }
        }
        let keyStart = readIndex + 2 + lengthBytes
        let maskKey = masked ? (buffer[keyStart], buffer[keyStart + 1], buffer[keyStart + 2], buffer[keyStart + 3]) : nil
        guard available - headerLength >= length else {
            partial = (opcode, rsv1, headerLength, length, maskKey)
            return nil
        }

        let payloadStart = readIndex + headerLength
        var payload = Array(buffer[payloadStart..<(payloadStart + length)])
        if let maskKey { WebSocketMask.apply(maskKey, to: &payload) }
        readIndex = payloadStart + length

        if !opcode.isControl {
            messageInProgress = !fin
            messageLength = fin ? 0 : messageLength + length
        }
        return WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, payload: payload)
    }
}

/// Masking (RFC 6455 §5.3): XOR with the 4-byte key, repeating.
public enum WebSocketMask {
    public static func apply(_ key: (UInt8, UInt8, UInt8, UInt8), to bytes: inout [UInt8], startingAt start: Int = 0) {
        let wide = UInt64(key.0) | UInt64(key.1) << 8 | UInt64(key.2) << 16 | UInt64(key.3) << 24
        let wideKey = wide | wide << 32
        bytes.withUnsafeMutableBytes { raw in
            let count = raw.count - start
            guard count > 0, let base = raw.baseAddress?.advanced(by: start) else { return }
            var offset = 0
            // 8 bytes at a time; the key pattern repeats every 4 bytes so it lines up again.
            while offset + 8 <= count {
                let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                base.storeBytes(of: word ^ wideKey.littleEndian, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            let keyBytes = [key.0, key.1, key.2, key.3]
            while offset < count {
                base.storeBytes(of: base.load(fromByteOffset: offset, as: UInt8.self) ^ keyBytes[offset & 3],
                                toByteOffset: offset, as: UInt8.self)
                offset += 1
            }
        }
    }
}
