import Glibc
import Posix
import Testing

@Suite struct ConnectionMigrationTests {
    @Test func aMovedConnectionKeepsItsSocketAndItsUnreadInput() throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let (home, away) = (group.loops[0], group.loops[1])
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let events = Recorder<String>()
        listener.start(on: home) { connection in
            connection.onClose = { events.append("home bookkeeping ended") }
            // The first bytes move the connection; the rest are echoed on the other loop.
            connection.handler = ProbeHandler { connection in
                let moved = connection.migrate(to: away) { moved in
                    events.append("adopted on loop \(moved.loop.index), in loop: \(away.inEventLoop)")
                    moved.onClose = { events.append("away bookkeeping ended") }
                    moved.handler = EchoHandler(events: events)
                }
                events.append("migrate \(moved)")
            }
        }
        let client = try BlockingSocket(host: "127.0.0.1", port: listener.port)
        try client.send("move")
        #expect(events.wait { $0.contains { $0.hasPrefix("adopted") } }.contains("adopted on loop 1, in loop: true"))
        // The home loop's bookkeeping ends before the move is sent (the other loop may adopt
        // the socket before `migrate` has returned on this one).
        #expect(events.all.first == "home bookkeeping ended")
        #expect(events.wait { $0.contains("migrate true") }.contains("migrate true"))
        try client.send("echo me")
        #expect(try receiveExactly(7, from: client) == Array("echo me".utf8))
        client.shutdownWrite()
        #expect(try client.receiveUntilClosed() == [])
        #expect(events.wait { $0.contains("closed") }.suffix(3) == ["eof", "away bookkeeping ended", "closed"])
    }

    @Test func aConnectionWithQueuedOutputOrToItsOwnLoopStaysPut() throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let events = Recorder<String>()
        let home = group.loops[0]
        listener.start(on: home) { connection in
            connection.handler = ProbeHandler { connection in
                events.append("same loop \(connection.migrate(to: home) { _ in })")
                connection.write(Array("queued".utf8))
                events.append("with output \(connection.migrate(to: group.loops[1]) { _ in })")
            }
        }
        let client = try BlockingSocket(host: "127.0.0.1", port: listener.port)
        try client.send("x")
        #expect(try receiveExactly(6, from: client) == Array("queued".utf8))
        #expect(events.all == ["same loop false", "with output false"])
    }
}
