import Compression
import Testing
@testable import WebSocketCore

@Suite struct PerMessageDeflateTests {
    let start = ContinuousClock.now

    @Test func compressesHelloAsInRFC7692() throws {
        // RFC 7692 §7.2.3.1.
        let stream = try DeflateStream(windowBits: 15)
        #expect(try stream.compressMessage(Array("Hello".utf8)) == hex("f2 48 cd c9 c9 07 00"))
    }

    @Test func reusesTheWindowUnlessReset() throws {
        // RFC 7692 §7.2.3.2: the second "Hello" refers back to the first.
        let stream = try DeflateStream(windowBits: 15)
        _ = try stream.compressMessage(Array("Hello".utf8))
        #expect(try stream.compressMessage(Array("Hello".utf8)) == hex("f2 00 11 00 00"))
        stream.reset()
        #expect(try stream.compressMessage(Array("Hello".utf8)) == hex("f2 48 cd c9 c9 07 00"))
    }

    static let rfcMessages: [(String, [UInt8])] = [
        ("§7.2.3.1 single frame", hex("c1 07 f2 48 cd c9 c9 07 00")),
        ("§7.2.3.1 fragmented", hex("41 03 f2 48 cd 80 04 c9 c9 07 00")),
        ("§7.2.3.3 stored block", hex("c1 0b 00 05 00 fa ff 48 65 6c 6c 6f 00")),
        ("§7.2.3.4 BFINAL set", hex("c1 08 f3 48 cd c9 c9 07 00 00")),
        ("§7.2.3.5 two blocks", hex("c1 0d f2 48 05 00 00 00 ff ff ca c9 c9 07 00")),
    ]

    @Test(arguments: rfcMessages)
    func inflatesTheRFC7692Examples(_ name: String, _ frames: [UInt8]) throws {
        var connection = WebSocketConnection(role: .client, configuration: .init(deflate: .init()), now: start)
        #expect(connection.receive(frames, now: start) == [.deliverText("Hello")], "\(name)")
    }

    @Test func inflatesTwoMessagesSharingAWindow() {
        // RFC 7692 §7.2.3.2, with context takeover.
        var connection = WebSocketConnection(role: .client, configuration: .init(deflate: .init()), now: start)
        let actions = connection.receive(hex("c1 07 f2 48 cd c9 c9 07 00 c1 05 f2 00 11 00 00"), now: start)
        #expect(actions == [.deliverText("Hello"), .deliverText("Hello")])
    }

    @Test func roundTripsRandomMessages() throws {
        let seed = UInt64.random(in: .min ... .max)
        var rng = SeededGenerator(seed: seed)
        for bits in [9, 12, 15] {
            let deflater = try DeflateStream(windowBits: bits)
            let inflater = try InflateStream(windowBits: bits)
            for _ in 0..<20 {
                let alphabet = Array("abcdefgh ".utf8)
                let message = (0..<Int.random(in: 0...5000, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
                let compressed = try deflater.compressMessage(message)
                var output: [UInt8] = []
                try inflater.inflateMessageEnd(compressed, into: &output, limit: 10_000)
                #expect(output == message, "seed \(seed) bits \(bits)")
            }
        }
    }

    @Test func compressesForAnEightBitWindowWithoutBackReferences() throws {
        // zlib refuses raw deflate with windowBits 8; Huffman-only output suits a 256-byte window.
        let message = Array(String(repeating: "0123456789abcdef", count: 64).utf8)
        let stream = try DeflateStream(windowBits: 8)
        let compressed = try stream.compressMessage(message)
        #expect(compressed.count < message.count)
        let inflater = try InflateStream(windowBits: 8)
        var output: [UInt8] = []
        try inflater.inflateMessageEnd(compressed, into: &output, limit: 1 << 20)
        #expect(output == message)
        let broadcast = BroadcastFrame(text: String(decoding: message, as: UTF8.self))
        var client = WebSocketConnection(role: .client, configuration: .init(deflate: .init(serverMaxWindowBits: 8)), now: start)
        let frame = try #require(broadcast.compressedFrame(windowBits: 8))
        #expect(client.receive(frame, now: start) == [.deliverText(String(decoding: message, as: UTF8.self))])
    }

    @Test func stopsInflatingABombAtTheLimit() throws {
        let bomb = try DeflateStream().compressMessage([UInt8](repeating: 0, count: 8 << 20))
        #expect(bomb.count < 10_000)
        let inflater = try InflateStream()
        var output: [UInt8] = []
        #expect(throws: CompressionError.outputLimitExceeded(limit: 65536)) {
            try inflater.inflateMessageEnd(bomb, into: &output, limit: 65536)
        }
        #expect(output.count <= 65537)
        #expect(output.capacity < 200_000)
    }

    @Test func closesWith1009OnACompressionBomb() throws {
        let body = try DeflateStream().compressMessage([UInt8](repeating: 0x61, count: 4 << 20))
        var connection = WebSocketConnection(role: .server, configuration: .init(deflate: .init()), now: start)
        let actions = connection.receive(clientFrame(.text, body, rsv1: true), now: start)
        #expect(sentCloseCode(actions) == 1009)
        #expect(connection.failure == .messageTooBig)
    }

    @Test func closesWith1002OnCorruptCompressedData() {
        var connection = WebSocketConnection(role: .server, configuration: .init(deflate: .init()), now: start)
        let actions = connection.receive(clientFrame(.text, [0xFF, 0xFF, 0xFF], rsv1: true), now: start)
        #expect(sentCloseCode(actions) == 1002)
    }

    @Test func closesWith1007OnInvalidUTF8InsideACompressedMessage() throws {
        let body = try DeflateStream().compressMessage([0x61, 0xFF, 0x62])
        var connection = WebSocketConnection(role: .server, configuration: .init(deflate: .init()), now: start)
        #expect(sentCloseCode(connection.receive(clientFrame(.text, body, rsv1: true), now: start)) == 1007)
    }

    @Test func compressesOnlyMessagesAboveTheThreshold() throws {
        var server = WebSocketConnection(role: .server, configuration: .init(deflate: .init(serverNoContextTakeover: true)), now: start)
        var client = WebSocketConnection(role: .client, configuration: .init(deflate: .init(serverNoContextTakeover: true)), now: start)
        #expect(server.send(text: "short") == [.write(hex("81 05 73 68 6f 72 74"))])
        let long = String(repeating: "tombola ", count: 100)
        guard case .write(let frame) = server.send(text: long).first else { Issue.record("no write"); return }
        #expect(frame[0] == 0xC1)
        #expect(frame.count < 100)
        #expect(client.receive(frame, now: start) == [.deliverText(long)])
        // The next message must not depend on the previous one (server_no_context_takeover).
        guard case .write(let again) = server.send(text: long).first else { Issue.record("no write"); return }
        #expect(again == frame)
    }

    @Test func clientCompressesWithContextTakeoverAndServerFollows() {
        let parameters = PerMessageDeflateParameters(serverNoContextTakeover: true)
        var client = WebSocketConnection(role: .client, configuration: .init(deflate: parameters), now: start)
        var server = WebSocketConnection(role: .server, configuration: .init(deflate: parameters), now: start)
        let text = String(repeating: "abc123 ", count: 60)
        for _ in 0..<3 {
            guard case .write(let frame) = client.send(text: text).first else { Issue.record("no write"); return }
            #expect(frame[0] == 0xC1)
            #expect(server.receive(frame, now: start) == [.deliverText(text)])
        }
    }

    @Test func sharesOneCompressedBroadcastFrameAcrossConnections() {
        let text = "{\"type\":\"tick\",\"values\":[" + (1...200).map(String.init).joined(separator: ",") + "]}"
        let broadcast = BroadcastFrame(text: text)
        let parameters = PerMessageDeflateParameters(serverNoContextTakeover: true)
        var first = WebSocketConnection(role: .server, configuration: .init(deflate: parameters), now: start)
        var second = WebSocketConnection(role: .server, configuration: .init(deflate: parameters), now: start)
        var plain = WebSocketConnection(role: .server, now: start)
        let a = first.send(broadcast)
        let b = second.send(broadcast)
        #expect(a == b)
        #expect(plain.send(broadcast) == [.write(broadcast.plain)])
        guard case .write(let bytes) = a.first else { Issue.record("no write"); return }
        #expect(bytes[0] == 0xC1 && bytes.count < broadcast.plain.count)
        // A client with its own history (context takeover) still reads it, between unicasts.
        var client = WebSocketConnection(role: .client, configuration: .init(deflate: parameters), now: start)
        guard case .write(let unicast) = first.send(text: text + " unicast").first else { Issue.record("no write"); return }
        #expect(client.receive(unicast + bytes + unicast, now: start)
                == [.deliverText(text + " unicast"), .deliverText(text), .deliverText(text + " unicast")])
    }

    static let negotiations: [(String, String?, String?)] = [
        ("permessage-deflate", "permessage-deflate; server_no_context_takeover; client_no_context_takeover", nil),
        ("permessage-deflate; client_max_window_bits", "permessage-deflate; server_no_context_takeover; client_no_context_takeover", nil),
        ("permessage-deflate; client_max_window_bits=10", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits=10", nil),
        ("permessage-deflate; server_max_window_bits=10", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10", nil),
        ("permessage-deflate; server_max_window_bits=\"12\"", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=12", nil),
        ("PerMessage-Deflate; Server_No_Context_Takeover", "permessage-deflate; server_no_context_takeover; client_no_context_takeover", nil),
        ("permessage-deflate; server_max_window_bits=8", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=8", "Huffman-only"),
        ("permessage-deflate; server_max_window_bits=7, permessage-deflate", "permessage-deflate; server_no_context_takeover; client_no_context_takeover", "falls back to the next offer"),
        ("permessage-deflate; server_max_window_bits", nil, "value required"),
        ("permessage-deflate; server_max_window_bits=16", nil, "out of range"),
        ("permessage-deflate; server_max_window_bits=08", nil, "leading zero"),
        ("permessage-deflate; client_max_window_bits=7", nil, "out of range"),
        ("permessage-deflate; server_no_context_takeover=1", nil, "no value allowed"),
        ("permessage-deflate; foo", nil, "unknown parameter"),
        ("permessage-deflate; client_no_context_takeover; client_no_context_takeover", nil, "duplicate"),
        ("x-webkit-deflate-frame", nil, "other extension"),
        ("foo, permessage-deflate; server_max_window_bits=15", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=15", nil),
        ("permessage-deflate ;\tclient_max_window_bits = \"10\" ", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits=10", "spaces and tabs around"),
        ("permessage-deflate;;client_max_window_bits", nil, "empty parameter"),
        ("permessage-deflate; client_no_context_ta\u{212A}eover", nil, "only ASCII letters fold (U+212A is not k)"),
        ("perm\u{E9}ssage-deflate", nil, "non-ASCII name"),
        ("permessage-deflate; server_max_window_bits=\"", nil, "a lone quote is no value"),
    ]

    @Test(arguments: negotiations)
    func negotiatesOffers(_ offer: String, _ response: String?, _ why: String?) {
        let result = PerMessageDeflate.negotiate(offers: [offer], configuration: .init())
        #expect(result?.response == response, "\(why ?? offer)")
    }

    @Test func parsesElementsAndParametersAsWritten() {
        let elements = PerMessageDeflate.parseExtensions(["Foo; A=1;b, permessage-deflate; X=\"q\"", "bar"])
        #expect(elements.map(\.name) == ["foo", "permessage-deflate", "bar"])
        #expect(elements[0].parameters.map(\.name) == ["a", "b"])
        #expect(elements[0].parameters.map(\.value) == ["1", nil])
        #expect(elements[1].parameters.map(\.name) == ["x"] && elements[1].parameters.map(\.value) == ["q"])
        #expect(elements[2].parameters.isEmpty)
    }

    @Test func negotiatesParametersAsAgreed() {
        let result = PerMessageDeflate.negotiate(offers: ["permessage-deflate; server_max_window_bits=10; client_max_window_bits=9"],
                                                 configuration: .init(serverNoContextTakeover: false, clientNoContextTakeover: false))
        #expect(result?.parameters == PerMessageDeflateParameters(serverMaxWindowBits: 10, clientMaxWindowBits: 9))
        #expect(result?.response == "permessage-deflate; server_max_window_bits=10; client_max_window_bits=9")
        let smaller = PerMessageDeflate.negotiate(offers: ["permessage-deflate; client_max_window_bits"],
                                                  configuration: .init(clientMaxWindowBits: 11))
        #expect(smaller?.parameters.clientMaxWindowBits == 11)
        #expect(smaller?.response.hasSuffix("client_max_window_bits=11") == true)
    }

    @Test func clientAcceptsOnlyWellFormedResponses() throws {
        #expect(try PerMessageDeflate.acceptResponse([]) == nil)
        #expect(try PerMessageDeflate.acceptResponse(["permessage-deflate; server_no_context_takeover; client_max_window_bits=12"])
                == PerMessageDeflateParameters(serverNoContextTakeover: true, clientMaxWindowBits: 12))
        #expect(throws: WebSocketHandshakeError.unsupportedExtension) { try PerMessageDeflate.acceptResponse(["permessage-deflate; bogus"]) }
        #expect(throws: WebSocketHandshakeError.unsupportedExtension) { try PerMessageDeflate.acceptResponse(["permessage-deflate, permessage-deflate"]) }
        #expect(throws: WebSocketHandshakeError.unsupportedExtension) { try PerMessageDeflate.acceptResponse(["permessage-deflate; client_max_window_bits"]) }
    }
}
