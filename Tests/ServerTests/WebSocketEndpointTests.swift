import Glibc
import Synchronization
import Testing
import WebSocketClient
import WebSocketCore
@testable import Server
import TestSupport

@Suite struct WebSocketEndpointTests {
    @Test func acceptsAValidHandshakeWithTheRFCAcceptValue() throws {
        let server = try TestServer(echo: true)
        defer { server.stop() }
        let response = try server.handshake(lines: validHandshakeLines)
        #expect(response.status == 101)
        // RFC 6455 §1.3's worked example.
        #expect(response.values("sec-websocket-accept") == ["s3pPLMBiTxaQ9kYGzzhZRbK+xOo="])
        #expect(response.values("upgrade") == ["websocket"])
    }

    @Test func answers426WithTheSupportedVersionForAnotherVersion() throws {
        let server = try TestServer(echo: true)
        defer { server.stop() }
        let lines = validHandshakeLines.map { $0.hasPrefix("Sec-WebSocket-Version") ? "Sec-WebSocket-Version: 8" : $0 }
        let response = try server.handshake(lines: lines)
        #expect(response.status == 426)
        #expect(response.values("sec-websocket-version") == ["13"])
    }

    @Test(arguments: [
        "Sec-WebSocket-Key: not-base64!",
        "Sec-WebSocket-Key: AAAA",
        "Upgrade: h2c",
        "Connection: keep-alive",
    ])
    func answers400ForABadKeyOrMissingUpgradeHeaders(_ replacement: String) throws {
        let server = try TestServer(echo: true)
        defer { server.stop() }
        let name = replacement.prefix { $0 != ":" }
        let lines = validHandshakeLines.map { $0.hasPrefix(name) ? replacement : $0 }
        #expect(try server.handshake(lines: lines).status == 400)
    }

    @Test func answers400ToAPlainRequestWithoutUpgrade() throws {
        let server = try TestServer(echo: true)
        defer { server.stop() }
        #expect(try server.get("/ws/echo").status == 400)
    }

    @Test func refusesAForeignBrowserOriginWith403() throws {
        let server = try TestServer(echo: true)
        defer { server.stop() }
        let response = try server.handshake(lines: validHandshakeLines + ["Origin: https://evil.example"])
        #expect(response.status == 403)
    }

    @Test(arguments: ["Origin: http://127.0.0.1", "Origin: https://screen.example.org"])
    func acceptsTheServersOwnOriginAndAllowListedOnes(_ origin: String) throws {
        let server = try TestServer(echo: true, configure: { $0.allowedOrigins = ["https://screen.example.org"] })
        defer { server.stop() }
        #expect(try server.handshake(lines: validHandshakeLines + [origin]).status == 101)
    }

    @Test func echoEndpointIs404WithoutTheFlag() throws {
        let server = try TestServer(echo: false)
        defer { server.stop() }
        #expect(try server.handshake(lines: validHandshakeLines).status == 404)
    }

    @Test func negotiatesPermessageDeflateWhenOffered() throws {
        let server = try TestServer(echo: true)
        defer { server.stop() }
        let plain = try server.webSocket()
        #expect(plain.deflate == nil)
        let compressed = try server.webSocket(deflate: true)
        #expect(compressed.deflate != nil)
    }

    @Test func acceptRunsOnTheSessionsLoopWithTheUpgradeRequest() throws {
        let server = try TestServer(echo: false, extra: { router in
            router.webSocket(prefix: "/ws/hello/") { session in
                let onLoop = session.loop.inEventLoop
                session.send(text: "\(session.request.head.path) \(session.request.head.query ?? "-") \(onLoop)")
            }
        })
        defer { server.stop() }
        let client = try server.webSocket("/ws/hello/abc?x=1")
        #expect(try client.receiveMessage() == .text("/ws/hello/abc x=1 true"))
    }

    @Test func bytesSentWithTheHandshakeReachTheSession() throws {
        let server = try TestServer(echo: true)
        defer { server.stop() }
        let socket = try server.connect()
        let request = "GET /ws/echo HTTP/1.1\r\n" + validHandshakeLines.map { $0 + "\r\n" }.joined() + "\r\n"
        try socket.send(Array(request.utf8) + clientFrame(.text, Array("early".utf8)))
        var reader = ResponseReader(socket: socket)
        #expect(try reader.next().status == 101)
        let expectedFrame = WebSocketFrameEncoder.encode(opcode: .text, payload: Array("early".utf8))
        var received = reader.buffer
        while received.count < expectedFrame.count {
            let chunk = try socket.receive()
            if chunk.isEmpty { break }
            received += chunk
        }
        #expect(received == expectedFrame)
    }

    @Test func sessionsCountTowardsTheConnectionCap() throws {
        let server = try TestServer(echo: true, configure: { $0.maxConnections = 1 })
        defer { server.stop() }
        let client = try server.webSocket()
        try client.send(text: "one")
        #expect(try client.receiveMessage() == .text("one"))
        #expect(try server.get("/").status == 503)
        try client.close(code: 1000)
        #expect(try client.receiveCloseCode() == 1000)
        #expect(client.waitForSocketClose())
        #expect(try waitUntil { try server.get("/").status == 200 })
    }

    @Test func metricsCountSessionsMessagesAndCloseCodes() throws {
        let server = try TestServer(echo: true)
        defer { server.stop() }
        let client = try server.webSocket()
        try client.send(text: "one")
        #expect(try client.receiveMessage() == .text("one"))
        #expect(try server.metricValue("tombola_ws_open_sessions") == 1)
        #expect(try server.metricValue("tombola_ws_messages_received_total") == 1)
        #expect(try server.metricValue("tombola_ws_messages_sent_total") == 1)
        try client.close(code: 1000)
        #expect(try client.receiveCloseCode() == 1000)
        #expect(client.waitForSocketClose())
        #expect(try waitUntil { try server.metricValue("tombola_ws_open_sessions") == 0 })
        #expect(try server.metricValue("tombola_ws_sessions_closed_total{code=\"1000\"}") == 1)
    }
}
