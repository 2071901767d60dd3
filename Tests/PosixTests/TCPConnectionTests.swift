import Glibc
import Posix
import Synchronization
import Testing

@Suite struct TCPConnectionTests {
    @Test func echoesBytesThroughARealSocket() throws {
        let server = try EchoServer()
        defer { server.shutdown() }
        let client = try BlockingSocket(host: "127.0.0.1", port: server.listener.port)
        try client.send("hello, loop")
        #expect(try receiveExactly(11, from: client) == Array("hello, loop".utf8))
    }

    @Test func listenerOnPortZeroReportsTheBoundPort() throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        #expect(listener.port > 0)
        #expect(listener.address.host == "127.0.0.1")
    }

    @Test func twoListenersShareAPortWithReusePort() throws {
        let first = try TCPListener(host: "127.0.0.1", port: 0, reusePort: true)
        defer { first.close() }
        let second = try TCPListener(host: "127.0.0.1", port: first.port, reusePort: true)
        defer { second.close() }
        #expect(second.port == first.port)
    }

    @Test func peerHalfCloseIsReportedThenOutputStillArrives() throws {
        let server = try EchoServer()
        defer { server.shutdown() }
        let client = try BlockingSocket(host: "127.0.0.1", port: server.listener.port)
        try client.send("last words")
        client.shutdownWrite()
        #expect(try client.receiveUntilClosed() == Array("last words".utf8))
        #expect(server.events.wait { $0.contains("closed") } == ["eof", "closed"])
    }

    @Test func peerResetClosesTheConnectionExactlyOnce() throws {
        let server = try EchoServer()
        defer { server.shutdown() }
        let client = try BlockingSocket(host: "127.0.0.1", port: server.listener.port)
        try client.send("x")
        _ = try receiveExactly(1, from: client)
        client.reset()
        let events = server.events.wait { $0.contains { $0.hasPrefix("closed") } }
        settle(server.group.loops[0])  // anything the reset still had to trigger has run
        #expect(events.filter { $0.hasPrefix("closed") }.count == 1)
        #expect(server.events.all.filter { $0.hasPrefix("closed") }.count == 1)
    }

    @Test func largeWriteSurvivesBackPressureAndReportsDrained() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let events = Recorder<String>()
        let size = 8 * 1024 * 1024
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        listener.start(on: group.next()) { connection in
            let handler = BulkHandler(events: events)
            connection.handler = handler
            connection.write(payload)
            events.append("queued \(connection.pendingOutboundBytes > 0)")
        }
        let client = try BlockingSocket(host: "127.0.0.1", port: listener.port)
        // The kernel buffers filled before we read a byte, so the server must wait for EPOLLOUT.
        #expect(events.wait { $0.contains { $0.hasPrefix("queued") } }.contains("queued true"))
        let received = try receiveExactly(size, from: client)
        #expect(received.count == size)
        #expect(received == payload)
        #expect(events.wait { $0.contains("drained 0") }.contains("drained 0"))
    }

    @Test func oneArrayBroadcastToManyConnectionsReachesEach() throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let registry = ConnectionRegistry()
        listener.start(on: group.loops[0]) { connection in
            connection.handler = BulkHandler(events: Recorder())
            registry.add(connection)
        }
        let clients = try (0..<50).map { _ in try BlockingSocket(host: "127.0.0.1", port: listener.port) }
        #expect(registry.wait(count: 50))
        let frame = Array(repeating: UInt8(ascii: "f"), count: 10_000)
        group.loops[0].execute { registry.broadcast(frame) }
        for client in clients {
            #expect(try receiveExactly(frame.count, from: client) == frame)
        }
    }

    @Test func closeAfterWriteDeliversEverythingThenEndOfStream() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let payload = Array(repeating: UInt8(ascii: "z"), count: 300_000)
        listener.start(on: group.next()) { connection in
            connection.handler = BulkHandler(events: Recorder())
            connection.write(payload)
            connection.close()
        }
        let client = try BlockingSocket(host: "127.0.0.1", port: listener.port)
        #expect(try client.receiveUntilClosed() == payload)
    }

    @Test func closingWithUnreadInputStillDeliversTheOutput() throws {
        // Lingering close: the server answers and closes without reading what the client
        // keeps sending; a plain close would reset the connection and lose the answer.
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        listener.start(on: group.next()) { connection in
            connection.handler = AnswerOnceHandler()
        }
        let client = try BlockingSocket(host: "127.0.0.1", port: listener.port)
        try client.send(Array(repeating: UInt8(ascii: "a"), count: 1024))
        // The answer is here, unread, and the server has closed before the rest is sent.
        #expect(waitUntil { client.unreadByteCount >= 6 })
        try client.send(Array(repeating: UInt8(ascii: "b"), count: 2 << 20))
        #expect(try client.receiveUntilClosed() == Array("answer".utf8))
    }

    @Test func pausedReadingDeliversNothingUntilResumed() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let events = Recorder<String>()
        let registry = ConnectionRegistry()
        listener.start(on: loop) { connection in
            connection.handler = BulkHandler(events: events)
            connection.pauseReading()
            registry.add(connection)
        }
        let client = try BlockingSocket(host: "127.0.0.1", port: listener.port)
        #expect(registry.wait(count: 1))
        try client.send("held")
        // The bytes wait in the kernel, and the loop has had its chance to (wrongly) read them.
        let fd = registry.descriptor(at: 0)
        #expect(waitUntil { unreadBytes(onDescriptor: fd) == 4 })
        settle(loop)
        #expect(!events.all.contains { $0.hasPrefix("received") })
        loop.execute { registry.resumeAll() }
        #expect(events.wait { $0.contains("received 4") }.contains("received 4"))
    }

    @Test func groupShutdownClosesOpenConnections() throws {
        let server = try EchoServer()
        let client = try BlockingSocket(host: "127.0.0.1", port: server.listener.port)
        try client.send("a")
        _ = try receiveExactly(1, from: client)
        server.shutdown()
        #expect(try client.receiveUntilClosed() == [])
        #expect(server.events.all == ["closed"])
    }

    @Test func socketAddressParsesAndFormatsBothFamilies() throws {
        #expect(try SocketAddress(host: "127.0.0.1", port: 8080).description == "127.0.0.1:8080")
        #expect(try SocketAddress(host: "::1", port: 80).description == "[::1]:80")
        #expect(try SocketAddress(host: "localhost", port: 1).host == "127.0.0.1")
        #expect(throws: POSIXError.self) { try SocketAddress(host: "not-an-ip", port: 1) }
        #expect(throws: POSIXError.self) { try SocketAddress(host: "1.2.3.4", port: 70000) }
    }

    @Test func lanAddressesExcludeLoopback() {
        let addresses = NetworkInterfaces.lanIPv4Addresses()
        #expect(!addresses.contains("127.0.0.1"))
        #expect(addresses.allSatisfy { $0.split(separator: ".").count == 4 })
    }
}

/// Records reads and drains; writes nothing by itself.
final class BulkHandler: ConnectionHandler {
    let events: Recorder<String>
    init(events: Recorder<String>) { self.events = events }
    func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
        events.append("received \(bytes.count)")
    }
    func drained(_ connection: TCPConnection) {
        events.append("drained \(connection.pendingOutboundBytes)")
    }
    func closed(_ connection: TCPConnection, error: POSIXError?) { events.append("closed") }
}

/// Connections accepted on one loop; mutated only there (hence `@unchecked`), counted
/// from the test thread through the atomic.
final class ConnectionRegistry: @unchecked Sendable {
    private var connections: [TCPConnection] = []
    private let count = Atomic<Int>(0)

    func add(_ connection: TCPConnection) {
        connections.append(connection)
        count.add(1, ordering: .releasing)
    }

    func broadcast(_ frame: [UInt8]) { for connection in connections { connection.write(frame) } }
    func resumeAll() { for connection in connections { connection.resumeReading() } }
    /// A different array for each connection, `distinct(index:size:)` for the index-th.
    func writeDistinct(size: Int) {
        for (index, connection) in connections.enumerated() { connection.write(Self.distinct(index: index, size: size)) }
    }
    static func distinct(index: Int, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 3 &+ index) }
    }
    /// Call on the loop.
    var connectionsWithQueuedOutput: Int { connections.filter { $0.pendingOutboundBytes > 0 }.count }

    /// The descriptor of the `index`-th connection, once `wait(count:)` has seen it. From any thread.
    func descriptor(at index: Int) -> Int32 { connections[index].id }

    /// Connections added so far. From any thread.
    var accepted: Int { count.load(ordering: .acquiring) }

    func wait(count expected: Int) -> Bool {
        waitUntil { count.load(ordering: .acquiring) >= expected }
    }
}

/// Answers the first bytes with "answer" and closes, reading nothing more.
final class AnswerOnceHandler: ConnectionHandler {
    private var answered = false
    func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
        guard !answered else { return }
        answered = true
        connection.write(Array("answer".utf8))
        connection.close()
    }
    func closed(_ connection: TCPConnection, error: POSIXError?) {}
}
