import Testing
@testable import WebSocketCore

@Suite struct WebSocketFrameEncoderTests {
    // RFC 6455 §5.7 examples, byte for byte.
    @Test func encodesRFCExamples() {
        #expect(WebSocketFrameEncoder.encode(opcode: .text, payload: Array("Hello".utf8)) == hex("81 05 48 65 6c 6c 6f"))
        #expect(WebSocketFrameEncoder.encode(opcode: .text, payload: Array("Hello".utf8), maskKey: sampleMask)
                == hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"))
        #expect(WebSocketFrameEncoder.encode(opcode: .text, fin: false, payload: Array("Hel".utf8)) == hex("01 03 48 65 6c"))
        #expect(WebSocketFrameEncoder.encode(opcode: .continuation, payload: Array("lo".utf8)) == hex("80 02 6c 6f"))
        #expect(WebSocketFrameEncoder.encode(opcode: .ping, payload: Array("Hello".utf8)) == hex("89 05 48 65 6c 6c 6f"))
        #expect(WebSocketFrameEncoder.encode(opcode: .pong, payload: Array("Hello".utf8), maskKey: sampleMask)
                == hex("8a 85 37 fa 21 3d 7f 9f 4d 51 58"))
    }

    @Test(arguments: [(0, 2), (125, 2), (126, 4), (65535, 4), (65536, 10)])
    func usesTheShortestLengthForm(_ length: Int, _ headerSize: Int) throws {
        let payload = [UInt8](repeating: 0x5A, count: length)
        let frame = WebSocketFrameEncoder.encode(opcode: .binary, payload: payload)
        #expect(frame.count == headerSize + length)
        #expect(WebSocketFrameEncoder.headerSize(payloadLength: length, masked: false) == headerSize)
        #expect(try parseAll(frame, role: .client) == [WebSocketFrame(opcode: .binary, payload: payload)])
        let masked = WebSocketFrameEncoder.encode(opcode: .binary, payload: payload, maskKey: (1, 2, 3, 4))
        #expect(try parseAll(masked, role: .server) == [WebSocketFrame(opcode: .binary, payload: payload)])
    }

    @Test func setsRSV1AndAppendsToAnExistingBuffer() {
        var buffer: [UInt8] = [0xEE]
        WebSocketFrameEncoder.encode(opcode: .text, rsv1: true, payload: [0x00], into: &buffer)
        #expect(buffer == hex("ee c1 01 00"))
    }

    @Test func buildsBroadcastTextFrameOnce() {
        let frame = BroadcastFrame(text: "Hello")
        #expect(frame.plain == hex("81 05 48 65 6c 6c 6f"))
        #expect(WebSocketFrameEncoder.serverTextFrame("Hello") == frame.plain)
    }

    @Test func cutsLongCloseReasonsAtCharacterBoundaries() {
        let payload = WebSocketFrameEncoder.closePayload(code: .goingAway, reason: String(repeating: "é", count: 100))
        #expect(payload.count == 124)  // 2 + 61 × 2 bytes
        #expect(Array(payload.prefix(2)) == [0x03, 0xE9])
        #expect(UTF8Validator.isValid(payload.dropFirst(2)))
    }
}
