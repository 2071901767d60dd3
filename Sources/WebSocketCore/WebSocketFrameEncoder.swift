/// Encodes frames (RFC 6455 §5.2) with the shortest length form.
public enum WebSocketFrameEncoder {
    /// The header size for a payload of `length` bytes.
    public static func headerSize(payloadLength length: Int, masked: Bool) -> Int {
        (length < 126 ? 2 : (length <= 0xFFFF ? 4 : 10)) + (masked ? 4 : 0)
    }

    /// Appends one encoded frame to `buffer`. A `maskKey` masks the payload (clients must).
    public static func encode(
        opcode: WebSocketOpcode, fin: Bool = true, rsv1: Bool = false,
        payload: some Collection<UInt8>, maskKey: (UInt8, UInt8, UInt8, UInt8)? = nil,
        into buffer: inout [UInt8]
    ) {
        let length = payload.count
        buffer.reserveCapacity(buffer.count + headerSize(payloadLength: length, masked: maskKey != nil) + length)
        buffer.append((fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        if length < 126 {
            buffer.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            buffer.append(maskBit | 126)
            buffer.append(UInt8(length >> 8))
            buffer.append(UInt8(length & 0xFF))
        } else {
            buffer.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift))) }
        }
        if let key = maskKey {
            buffer.append(contentsOf: [key.0, key.1, key.2, key.3])
            let start = buffer.count
            buffer.append(contentsOf: payload)
            WebSocketMask.apply(key, to: &buffer, startingAt: start)
        } else {
            buffer.append(contentsOf: payload)
        }
    }

    /// One encoded frame as a new array.
    public static func encode(
        opcode: WebSocketOpcode, fin: Bool = true, rsv1: Bool = false,
        payload: some Collection<UInt8>, maskKey: (UInt8, UInt8, UInt8, UInt8)? = nil
    ) -> [UInt8] {
        var buffer: [UInt8] = []
        encode(opcode: opcode, fin: fin, rsv1: rsv1, payload: payload, maskKey: maskKey, into: &buffer)
        return buffer
    }

    /// Encodes `frame` (its payload unmasked).
    public static func encode(_ frame: WebSocketFrame, maskKey: (UInt8, UInt8, UInt8, UInt8)? = nil) -> [UInt8] {
        encode(opcode: frame.opcode, fin: frame.fin, rsv1: frame.rsv1, payload: frame.payload, maskKey: maskKey)
    }

    /// An unmasked server text frame, built once and sent as-is to many clients.
    public static func serverTextFrame(_ text: String) -> [UInt8] {
        encode(opcode: .text, payload: text.utf8)
    }

    /// The payload of a close frame: the code in network order, then the UTF-8 reason
    /// (RFC 6455 §5.5.1), with the reason cut at a character boundary to fit 125 bytes.
    public static func closePayload(code: WebSocketCloseCode?, reason: String = "") -> [UInt8] {
        guard let code else { return [] }
        var payload: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var reasonBytes = 0
        for scalar in reason.unicodeScalars {
            let size = String(scalar).utf8.count
            guard reasonBytes + size <= 123 else { break }
            payload.append(contentsOf: String(scalar).utf8)
            reasonBytes += size
        }
        return payload
    }
}
