import Glibc
import Posix
import Testing

/// Collects what an outbound connection receives and how it ends.
final class ClientRecorder: ConnectionHandler, Sendable {
    let bytes = Recorder<UInt8>()
    let events: Recorder<String>
    init(events: Recorder<String>) { self.events = events }

    func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
        for byte in bytes { self.bytes.append(byte) }
    }

    func closed(_ connection: TCPConnection, error: POSIXError?) {
        events.append(error.map { "closed errno \($0.code)" } ?? "closed")
    }
}

@Suite struct TCPConnectTests {
    @Test func bytesWrittenBeforeTheConnectCompletesReachThePeerAndComeBack() throws {
        let server = try EchoServer()
        defer { server.shutdown() }
        let remote = try SocketAddress(host: "127.0.0.1", port: server.listener.port)
        let source = try SocketAddress(host: "127.0.0.2", port: 0)
        let events = Recorder<String>()
        let client = ClientRecorder(events: events)
        let loop = server.group.next()
        let message = Array("hello over a non-blocking connect".utf8)
        loop.execute {
            let connection = try? TCPConnection.connect(to: remote, from: source, on: loop, handler: client)
            connection?.write(message)
            events.append(connection == nil ? "connect threw" : "connecting")
        }
        #expect(client.bytes.wait { $0.count >= message.count } == message)
        #expect(events.all == ["connecting"])
    }

    @Test func theServerSeesTheBoundSourceAddress() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let peers = Recorder<String>()
        let events = Recorder<String>()
        listener.start(on: group.next()) { connection in
            peers.append(connection.remoteAddress.host)
            connection.handler = EchoHandler(events: events)
        }
        let remote = try SocketAddress(host: "127.0.0.1", port: listener.port)
        let loop = group.next()
        let client = ClientRecorder(events: events)
        loop.execute {
            for host in ["127.0.0.3", "127.0.0.4"] {
                _ = try? TCPConnection.connect(to: remote, from: try? SocketAddress(host: host, port: 0), on: loop, handler: client)
            }
        }
        #expect(peers.wait { $0.count == 2 }.sorted() == ["127.0.0.3", "127.0.0.4"])
    }

    @Test func aRefusedConnectClosesWithItsError() throws {
        // Find a port nobody listens on: bind one, note it, close it.
        let probe = try TCPListener(host: "127.0.0.1", port: 0)
        let port = probe.port
        probe.close()
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let events = Recorder<String>()
        let client = ClientRecorder(events: events)
        let remote = try SocketAddress(host: "127.0.0.1", port: port)
        loop.execute {
            let connection = try? TCPConnection.connect(to: remote, on: loop, handler: client)
            connection?.write(Array("x".utf8))
        }
        #expect(events.wait { !$0.isEmpty } == ["closed errno \(ECONNREFUSED)"])
    }
}
