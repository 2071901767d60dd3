import Testing
@testable import WebSocketCore

@Suite struct WebSocketConnectionTests {
    let start = ContinuousClock.now

    func server(_ configuration: WebSocketConnection.Configuration = .init()) -> WebSocketConnection {
        WebSocketConnection(role: .server, configuration: configuration, now: start)
    }

    @Test func deliversTextAndBinaryMessages() {
        var connection = server()
        #expect(connection.receive(clientFrame(.text, "Hello"), now: start) == [.deliverText("Hello")])
        #expect(connection.receive(clientFrame(.binary, [1, 2, 3]), now: start) == [.deliverBinary([1, 2, 3])])
    }

    @Test func reassemblesFragmentsWithControlFramesInterleaved() {
        var connection = server()
        let stream = clientFrame(.text, "Hel", fin: false) + clientFrame(.ping, Array("p".utf8))
            + clientFrame(.continuation, "l", fin: false) + clientFrame(.pong, [])
            + clientFrame(.continuation, "o")
        let actions = connection.receive(stream, now: start)
        #expect(actions == [
            .write(hex("8a 01 70")), .deliverPing(Array("p".utf8)), .deliverPong([]), .deliverText("Hello"),
        ])
    }

    @Test func answersPingWithPongCarryingTheSamePayload() {
        var connection = server()
        let actions = connection.receive(hex("89 85 37 fa 21 3d 7f 9f 4d 51 58"), now: start)
        #expect(actions.first == .write(hex("8a 05 48 65 6c 6c 6f")))
    }

    @Test func closesWith1002WhenClientFrameIsUnmasked() {
        var connection = server()
        let actions = connection.receive(hex("81 05 48 65 6c 6c 6f"), now: start)
        #expect(actions == [.write(hex("88 02 03 ea")), .closeAfterWrite])
        #expect(connection.state == .closed)
        #expect(connection.failure == .unmaskedClientFrame)
        #expect(connection.receive(clientFrame(.text, "more"), now: start) == [])
    }

    @Test func closesWith1007OnInvalidUTF8BeforeTheMessageEnds() {
        var connection = server()
        let first = connection.receive(clientFrame(.text, [0xCE, 0xBA], fin: false), now: start)
        #expect(first == [])
        // An impossible byte in the second fragment fails at once, before the final fragment.
        let second = connection.receive(clientFrame(.continuation, [0xF5], fin: false), now: start)
        #expect(sentCloseCode(second) == 1007)
        #expect(second.last == .closeAfterWrite)
    }

    @Test func closesWith1007BeforeAFrameWithInvalidTextHasFullyArrived() {
        var connection = server()
        let frame = clientFrame(.text, Array("κόσμε".utf8) + [0xED, 0xA0, 0x80] + Array(repeating: 0x61, count: 100))
        #expect(connection.receive(frame[..<14], now: start) == [])
        let actions = connection.receive(frame[14..<20], now: start)
        #expect(sentCloseCode(actions) == 1007)
        #expect(connection.failure == .invalidUTF8)
    }

    @Test func validatesTextFramesArrivingByteByByte() {
        var connection = server()
        let text = "Hello-µ@ßöäüàá-UTF-8!! κόσμε 😀"
        let stream = clientFrame(.text, Array(text.utf8[...text.utf8.index(text.utf8.startIndex, offsetBy: 9)]), fin: false)
            + clientFrame(.continuation, Array(text.utf8.dropFirst(10)))
        var actions: [WebSocketConnection.Action] = []
        for byte in stream { actions += connection.receive([byte], now: start) }
        #expect(actions == [.deliverText(text)])
    }

    @Test func abortsWithACloseCodeWithoutWaiting() {
        var connection = server()
        #expect(connection.abort(code: .tryAgainLater) == [.write(hex("88 02 03 f5")), .closeAfterWrite])
        #expect(connection.state == .closed)
        #expect(connection.abort(code: .goingAway) == [])
    }

    @Test func closesWith1007WhenTextEndsInsideACharacter() {
        var connection = server()
        let actions = connection.receive(clientFrame(.text, [0x61, 0xE2, 0x82]), now: start)
        #expect(sentCloseCode(actions) == 1007)
    }

    @Test func acceptsCharactersSplitAcrossFragments() {
        var connection = server()
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        let actions = connection.receive(clientFrame(.text, Array(euro[0..<1]), fin: false)
            + clientFrame(.continuation, Array(euro[1..<3])), now: start)
        #expect(actions == [.deliverText("€")])
    }

    @Test func closesWith1009WhenAMessageExceedsTheLimit() {
        var connection = server(.init(maxMessageSize: 10))
        let actions = connection.receive(clientFrame(.binary, [UInt8](repeating: 0, count: 6), fin: false)
            + clientFrame(.continuation, [UInt8](repeating: 0, count: 6)), now: start)
        #expect(sentCloseCode(actions) == 1009)
        #expect(!actions.contains { if case .deliverBinary = $0 { true } else { false } })
    }

    static let validCloseCodes: [UInt16] = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999]
    static let invalidCloseCodes: [UInt16] = [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535]

    @Test(arguments: validCloseCodes)
    func echoesValidCloseCodes(_ code: UInt16) {
        var connection = server()
        let payload = [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8)
        let actions = connection.receive(clientFrame(.close, payload), now: start)
        #expect(actions == [
            .deliverClose(code: WebSocketCloseCode(code), reason: "bye"),
            .write([0x88, 0x02, UInt8(code >> 8), UInt8(code & 0xFF)]),
            .closeAfterWrite,
        ])
        #expect(connection.state == .closed)
    }

    @Test(arguments: invalidCloseCodes)
    func closesWith1002OnInvalidCloseCodes(_ code: UInt16) {
        var connection = server()
        let actions = connection.receive(clientFrame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)]), now: start)
        #expect(actions == [.write(hex("88 02 03 ea")), .closeAfterWrite])
        #expect(connection.failure == .invalidCloseCode(code))
    }

    @Test func closesWith1002OnAOneByteClosePayload() {
        var connection = server()
        #expect(sentCloseCode(connection.receive(clientFrame(.close, [0x03]), now: start)) == 1002)
    }

    @Test func closesWith1007OnAnInvalidUTF8CloseReason() {
        var connection = server()
        #expect(sentCloseCode(connection.receive(clientFrame(.close, [0x03, 0xE8, 0xFF]), now: start)) == 1007)
    }

    @Test func answersAnEmptyCloseWithAnEmptyClose() {
        var connection = server()
        let actions = connection.receive(clientFrame(.close, []), now: start)
        #expect(actions == [.deliverClose(code: nil, reason: ""), .write(hex("88 00")), .closeAfterWrite])
    }

    @Test func completesAClosingHandshakeWeStarted() {
        var connection = server()
        #expect(connection.close(code: .goingAway, reason: "bye", now: start) == [.write(hex("88 05 03 e9 62 79 65"))])
        #expect(connection.state == .closing)
        #expect(connection.send(text: "late") == [])
        #expect(connection.receive(clientFrame(.text, "ignored"), now: start) == [])
        let actions = connection.receive(clientFrame(.close, [0x03, 0xE9]), now: start)
        #expect(actions == [.deliverClose(code: .goingAway, reason: ""), .closeAfterWrite])
    }

    @Test func dropsAPeerThatNeverAnswersOurClose() {
        var connection = server(.init(closeTimeout: .seconds(5)))
        _ = connection.close(now: start)
        #expect(connection.nextDeadline == start + .seconds(5))
        #expect(connection.tick(now: start + .seconds(4)) == [])
        #expect(connection.tick(now: start + .seconds(5)) == [.closeNow])
        #expect(connection.state == .closed)
    }

    @Test func pingsAfterTwentyQuietSecondsAndDropsAfterSixty() {
        var connection = server()
        #expect(connection.nextDeadline == start + .seconds(20))
        #expect(connection.tick(now: start + .seconds(19)) == [])
        #expect(connection.tick(now: start + .seconds(20)) == [.write(hex("89 00"))])
        #expect(connection.tick(now: start + .seconds(21)) == [])
        #expect(connection.nextDeadline == start + .seconds(40))
        #expect(connection.tick(now: start + .seconds(40)) == [.write(hex("89 00"))])
        #expect(connection.nextDeadline == start + .seconds(60))
        #expect(connection.tick(now: start + .seconds(60)) == [.closeNow])
        #expect(connection.state == .closed)
        #expect(connection.nextDeadline == nil)
    }

    @Test func anyIncomingBytesKeepThePeerAlive() {
        var connection = server(.init(pingInterval: .seconds(2), idleTimeout: .seconds(6)))
        _ = connection.tick(now: start + .seconds(2))
        _ = connection.receive(clientFrame(.pong, []), now: start + .seconds(5))
        #expect(connection.tick(now: start + .seconds(6)) == [])
        #expect(connection.nextDeadline == start + .seconds(7))
        #expect(connection.tick(now: start + .seconds(11)) == [.closeNow])
    }

    @Test func sendsUnmaskedFramesAsServerAndMaskedFramesAsClient() throws {
        var server = server()
        #expect(server.send(text: "Hello") == [.write(hex("81 05 48 65 6c 6c 6f"))])
        var client = WebSocketConnection(role: .client, now: start, maskingSeed: 42)
        guard case .write(let bytes) = client.send(binary: [1, 2, 3]).first else {
            Issue.record("no write")
            return
        }
        #expect(bytes[1] & 0x80 != 0)
        #expect(try parseAll(bytes, role: .server) == [WebSocketFrame(opcode: .binary, payload: [1, 2, 3])])
        #expect(server.receive(bytes, now: start) == [.deliverBinary([1, 2, 3])])
    }

    @Test func deliversTheSameMessagesWhateverTheSplit() {
        let seed = UInt64.random(in: .min ... .max)
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<50 {
            var stream: [UInt8] = []
            var expected: [WebSocketConnection.Action] = []
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let text = String((0..<Int.random(in: 0...200, using: &rng)).map { _ in "aé中😀".randomElement(using: &rng)! })
                let bytes = Array(text.utf8)
                let cut = Int.random(in: 0...bytes.count, using: &rng)
                // Fragment only at character boundaries or not: the validator must not care.
                stream += clientFrame(.text, Array(bytes[..<cut]), fin: false)
                stream += clientFrame(.ping, [7])
                stream += clientFrame(.continuation, Array(bytes[cut...]))
                expected += [.write(hex("8a 01 07")), .deliverPing([7]), .deliverText(text)]
            }
            var connection = server()
            var actions: [WebSocketConnection.Action] = []
            var offset = 0
            while offset < stream.count {
                let size = Int.random(in: 1...max(1, stream.count / 3), using: &rng)
                let end = min(stream.count, offset + size)
                actions += connection.receive(stream[offset..<end], now: start)
                offset = end
            }
            #expect(actions == expected, "seed \(seed)")
        }
    }

    @Test func survivesRandomBytes() {
        let seed = UInt64.random(in: .min ... .max)
        var rng = SeededGenerator(seed: seed)
        for round in 0..<200 {
            let deflate = round % 2 == 0 ? PerMessageDeflateParameters(serverNoContextTakeover: true) : nil
            var connection = server(.init(maxMessageSize: 2048, deflate: deflate))
            // Start with a valid compressed-flagged frame header half the time so inflate runs on garbage.
            var bytes: [UInt8] = round % 4 == 0 ? hex("c1 a0 00 00 00 00") : []
            bytes += (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let actions = connection.receive(bytes, now: start)
            let closed = actions.contains(.closeAfterWrite) || actions.contains(.closeNow)
            #expect(closed == (connection.state == .closed), "seed \(seed)")
        }
    }
}
