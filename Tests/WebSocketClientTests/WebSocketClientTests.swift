import Testing
import WebSocketClient
import WebSocketCore

@Suite struct WebSocketClientTests {
    @Test(arguments: [false, true])
    func echoesTextAndBinaryThroughRealSockets(_ deflate: Bool) throws {
        let server = try EchoServer()
        defer { server.stop() }
        let client = try WebSocketClient.connect(host: "127.0.0.1", port: server.port, path: "/ws/echo", deflate: deflate)
        #expect((client.deflate != nil) == deflate)
        let big = String(repeating: "Tombola 抽奖 ", count: 20_000)
        try client.send(text: "Hello")
        #expect(try client.receive() == .text("Hello"))
        try client.send(binary: [0, 1, 2, 255])
        #expect(try client.receive() == .binary([0, 1, 2, 255]))
        try client.send(text: big)
        #expect(try client.receive() == .text(big))
        try client.close(code: 1000)
        #expect(try client.receive() == .close(code: 1000, reason: ""))
        #expect(client.waitForSocketClose())
    }

    @Test func exposesTheHandshakeResponseHeaders() throws {
        let server = try EchoServer()
        defer { server.stop() }
        let client = try WebSocketClient.connect(host: "127.0.0.1", port: server.port, deflate: true)
        #expect(client.response.status == 101)
        #expect(client.response.values("sec-websocket-extensions")
                == ["permessage-deflate; server_no_context_takeover; client_no_context_takeover"])
        #expect(client.responseHeaders.contains { $0.name == "Sec-WebSocket-Accept" })
    }

    @Test func getsAPongForAPing() throws {
        let server = try EchoServer()
        defer { server.stop() }
        let client = try WebSocketClient.connect(host: "127.0.0.1", port: server.port)
        try client.ping([1, 2, 3])
        #expect(try client.receive() == .pong([1, 2, 3]))
    }

    @Test func serverClosesWith1002OnAnUnmaskedFrame() throws {
        let server = try EchoServer()
        defer { server.stop() }
        let client = try WebSocketClient.connect(host: "127.0.0.1", port: server.port)
        try client.sendRaw(WebSocketFrameEncoder.encode(opcode: .text, payload: Array("Hello".utf8)))
        #expect(try client.receive() == .close(code: 1002, reason: ""))
        #expect(client.waitForSocketClose())
    }

    @Test func serverClosesWith1009OnAnOversizedFrameHeader() throws {
        let server = try EchoServer(maxMessageSize: 1000)
        defer { server.stop() }
        let client = try WebSocketClient.connect(host: "127.0.0.1", port: server.port)
        // Announce 1 GiB; the server must refuse from the header alone.
        try client.sendRaw([0x82, 0xFF, 0, 0, 0, 0, 0x40, 0, 0, 0, 1, 2, 3, 4])
        #expect(try client.receive() == .close(code: 1009, reason: ""))
    }

    @Test func refusedHandshakesSurfaceTheStatus() throws {
        let server = try EchoServer()
        defer { server.stop() }
        let request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n"
        let response = try WebSocketClient.handshakeResponse(host: "127.0.0.1", port: server.port, request: Array(request.utf8))
        #expect(response.status == 426)
        #expect(response.values("sec-websocket-version") == ["13"])
        #expect(throws: WebSocketClient.ClientError.handshakeFailed(.unexpectedStatus(403))) {
            try WebSocketClient.connect(host: "127.0.0.1", port: server.port, headers: [("Origin", "https://evil.example")])
        }
    }

    @Test func timesOutWhenNothingArrives() throws {
        let server = try EchoServer()
        defer { server.stop() }
        let client = try WebSocketClient.connect(host: "127.0.0.1", port: server.port)
        #expect(throws: WebSocketClient.ClientError.timedOut) { try client.receive(timeout: .milliseconds(100)) }
    }
}
