import Glibc
import HTTPCore
import Posix
import Testing
@testable import Server
import TestSupport

/// After the handshake, echoes bytes back in upper case.
final class ShoutingHandler: ConnectionHandler {
    func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
        connection.write(bytes.map { (97...122).contains($0) ? $0 - 32 : $0 })
    }
    func closed(_ connection: TCPConnection, error: POSIXError?) {}
}

@Suite struct UpgradeHookTests {
    private func shoutingRouter() -> Router {
        var router = Router()
        router.upgrade(prefix: "/ws/") { request, connection, leftover, _ in
            guard request.head.headers.contains(token: "upgrade", in: "Connection"),
                  request.head.headers["Upgrade"]?.lowercased() == "shout" else {
                return .rejected(.text(.upgradeRequired))
            }
            connection.write(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: shout\r\nConnection: Upgrade\r\n\r\n".utf8))
            let handler = ShoutingHandler()
            connection.handler = handler
            if !leftover.isEmpty { leftover.withUnsafeBytes { handler.received($0, on: connection) } }
            return .upgraded
        }
        return router
    }

    @Test func upgradeHandsTheConnectionAndLeftoverBytesToTheNewHandler() throws {
        let server = try TestServer(router: shoutingRouter())
        defer { server.stop() }
        let socket = try server.connect()
        // The first protocol bytes ride in the same packet as the request.
        try socket.send("GET /ws/shout HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: shout\r\n\r\nhello ")
        var reader = ResponseReader(socket: socket)
        let response = try reader.next()
        #expect(response.status == 101)
        var echoed = reader.buffer
        while echoed.count < 6 { echoed += try socket.receive() }
        #expect(String(decoding: echoed, as: UTF8.self) == "HELLO ")
        try socket.send("world")
        var more: [UInt8] = []
        while more.count < 5 { more += try socket.receive() }
        #expect(String(decoding: more, as: UTF8.self) == "WORLD")
    }

    @Test func upgradeWaitsForEarlierPipelinedResponses() throws {
        let server = try TestServer(router: shoutingRouter())
        defer { server.stop() }
        let socket = try server.connect()
        try socket.send("GET /robots.txt HTTP/1.1\r\nHost: t\r\n\r\nGET /ws/x HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: shout\r\n\r\nabc")
        var reader = ResponseReader(socket: socket)
        #expect(try reader.next().status == 200)
        #expect(try reader.next().status == 101)
        var echoed = reader.buffer
        while echoed.count < 3 { echoed += try socket.receive() }
        #expect(echoed == Array("ABC".utf8))
    }

    @Test func rejectedUpgradeIsAnsweredOverHTTPAndClosed() throws {
        let server = try TestServer(router: shoutingRouter())
        defer { server.stop() }
        let response = try server.get("/ws/shout")
        #expect(response.status == 426)
    }

    @Test func upgradedConnectionsStillCountTowardsTheCapUntilClosed() throws {
        let server = try TestServer(configure: { $0.maxConnections = 1 }, router: shoutingRouter())
        defer { server.stop() }
        let socket = try server.connect()
        try socket.send("GET /ws/a HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: shout\r\n\r\n")
        var reader = ResponseReader(socket: socket)
        #expect(try reader.next().status == 101)
        #expect(try server.get("/").status == 503)
        socket.close()
        #expect(try waitUntil { try server.get("/").status == 200 })
    }
}
