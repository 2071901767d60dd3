import Testing
@testable import WebSocketCore

@Suite struct WebSocketFrameParserTests {
    // RFC 6455 §5.7 examples.
    @Test func decodesSingleFrameUnmaskedText() throws {
        let frames = try parseAll(hex("81 05 48 65 6c 6c 6f"), role: .client)
        #expect(frames == [WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))])
    }

    @Test func decodesSingleFrameMaskedText() throws {
        let frames = try parseAll(hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"), role: .server)
        #expect(frames == [WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))])
    }

    @Test func decodesFragmentedUnmaskedText() throws {
        let frames = try parseAll(hex("01 03 48 65 6c 80 02 6c 6f"), role: .client)
        #expect(frames == [
            WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
            WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)),
        ])
    }

    @Test func decodesPingAndMaskedPong() throws {
        #expect(try parseAll(hex("89 05 48 65 6c 6c 6f"), role: .client) == [WebSocketFrame(opcode: .ping, payload: Array("Hello".utf8))])
        #expect(try parseAll(hex("8a 85 37 fa 21 3d 7f 9f 4d 51 58"), role: .server) == [WebSocketFrame(opcode: .pong, payload: Array("Hello".utf8))])
    }

    @Test func decodes16And64BitLengths() throws {
        let small = [UInt8](repeating: 7, count: 256)
        let big = [UInt8](repeating: 9, count: 65536)
        #expect(try parseAll(hex("82 7e 01 00") + small, role: .client) == [WebSocketFrame(opcode: .binary, payload: small)])
        #expect(try parseAll(hex("82 7f 00 00 00 00 00 01 00 00") + big, role: .client) == [WebSocketFrame(opcode: .binary, payload: big)])
    }

    @Test func acceptsNonMinimalLengthEncoding() throws {
        #expect(try parseAll(hex("82 7e 00 02 01 02"), role: .client) == [WebSocketFrame(opcode: .binary, payload: [1, 2])])
        #expect(try parseAll(hex("82 7f 00 00 00 00 00 00 00 01 05"), role: .client) == [WebSocketFrame(opcode: .binary, payload: [5])])
    }

    @Test func returnsFramesOnlyWhenCompleteAtEverySplit() throws {
        let stream = hex("01 83 37 fa 21 3d 7f 9f 4d") + hex("89 80 01 02 03 04") + hex("80 82 37 fa 21 3d 5b 95")
            + clientFrame(.binary, [UInt8](repeating: 1, count: 300))
        let expected = try parseAll(stream, role: .server)
        #expect(expected.count == 4)
        for split in 0...stream.count {
            var parser = WebSocketFrameParser(role: .server)
            var frames: [WebSocketFrame] = []
            parser.append(stream[..<split])
            while let frame = try parser.next() { frames.append(frame) }
            parser.append(stream[split...])
            while let frame = try parser.next() { frames.append(frame) }
            #expect(frames == expected, "split at \(split)")
            #expect(parser.bufferedByteCount == 0)
        }
    }

    static let violations: [(String, [UInt8], WebSocketRole, WebSocketProtocolError)] = [
        ("RSV2 set", hex("a1 80 00 00 00 00"), .server, .reservedBitsSet),
        ("RSV3 set", hex("91 80 00 00 00 00"), .server, .reservedBitsSet),
        ("RSV1 without deflate", hex("c1 80 00 00 00 00"), .server, .reservedBitsSet),
        ("opcode 3", hex("83 80 00 00 00 00"), .server, .reservedOpcode(3)),
        ("opcode 7", hex("87 80 00 00 00 00"), .server, .reservedOpcode(7)),
        ("opcode 0xB", hex("8b 80 00 00 00 00"), .server, .reservedOpcode(0xB)),
        ("opcode 0xF", hex("8f 80 00 00 00 00"), .server, .reservedOpcode(0xF)),
        ("unmasked client frame", hex("81 05 48 65 6c 6c 6f"), .server, .unmaskedClientFrame),
        ("masked server frame", hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"), .client, .maskedServerFrame),
        ("ping of 126 bytes", hex("89 fe 00 7e"), .server, .controlFrameTooLong),
        ("fragmented ping", hex("09 80 00 00 00 00"), .server, .fragmentedControlFrame),
        ("fragmented close", hex("08 80 00 00 00 00"), .server, .fragmentedControlFrame),
        ("64-bit length with MSB set", hex("82 ff 80 00 00 00 00 00 00 00 00 00 00 00"), .server, .invalidLength),
        ("continuation without a message", hex("80 80 00 00 00 00"), .server, .unexpectedContinuation),
        ("text inside a fragmented message", hex("01 80 00 00 00 00 81 80 00 00 00 00"), .server, .expectedContinuation),
    ]

    @Test(arguments: violations.indices)
    func failsOnFramingViolations(_ index: Int) {
        let (name, bytes, role, error) = Self.violations[index]
        #expect(throws: error, "\(name)") { try parseAll(bytes, role: role) }
        #expect(error.closeCode == .protocolError)
    }

    @Test func failsOnReservedBitsOnlyOnFirstFrameOfCompressedMessages() throws {
        #expect(try parseAll(hex("c1 80 00 00 00 00"), role: .server, deflate: true).first?.rsv1 == true)
        #expect(throws: WebSocketProtocolError.reservedBitsSet) {
            try parseAll(hex("41 80 00 00 00 00 c0 80 00 00 00 00"), role: .server, deflate: true)
        }
        #expect(throws: WebSocketProtocolError.reservedBitsSet) {
            try parseAll(hex("c9 80 00 00 00 00"), role: .server, deflate: true)
        }
    }

    @Test func failsOversizedFrameFromItsHeaderAlone() {
        var parser = WebSocketFrameParser(role: .server, maxMessageSize: 1000)
        parser.append(hex("82 fe 03 e9 00 00 00 00"))  // 1001 bytes announced, none sent
        #expect(throws: WebSocketProtocolError.messageTooBig) { try parser.next() }
        #expect(WebSocketProtocolError.messageTooBig.closeCode == .messageTooBig)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func countsFragmentsTowardsTheMessageLimit() throws {
        var parser = WebSocketFrameParser(role: .server, maxMessageSize: 10)
        parser.append(clientFrame(.text, [UInt8](repeating: 65, count: 6), fin: false))
        #expect(try parser.next() != nil)
        parser.append(clientFrame(.ping, [1, 2, 3]))
        #expect(try parser.next()?.opcode == .ping)
        parser.append(Array(clientFrame(.continuation, [UInt8](repeating: 65, count: 5)).prefix(6)))  // header only
        #expect(throws: WebSocketProtocolError.messageTooBig) { try parser.next() }
    }

    @Test func staysFailedAfterAnError() {
        var parser = WebSocketFrameParser(role: .server)
        parser.append(hex("83 80 00 00 00 00"))
        #expect(throws: WebSocketProtocolError.reservedOpcode(3)) { try parser.next() }
        parser.append(clientFrame(.text, "ok"))
        #expect(throws: WebSocketProtocolError.reservedOpcode(3)) { try parser.next() }
    }

    @Test func neverCrashesOnRandomBytes() {
        let seed = UInt64.random(in: .min ... .max)
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            var parser = WebSocketFrameParser(role: Bool.random(using: &rng) ? .server : .client, maxMessageSize: 4096,
                                              allowsCompressedMessages: Bool.random(using: &rng))
            var outcomes = 0
            for _ in 0..<8 {
                let chunk = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                parser.append(chunk)
                do { while try parser.next() != nil { outcomes += 1 } } catch { outcomes += 1; break }
            }
            #expect(parser.bufferedByteCount <= 8 * 64, "seed \(seed)")
        }
    }
}
