import Glibc
import Posix
import Synchronization
import Testing
@testable import App
@testable import Server

@Suite struct ServerLifecycleTests {
    @Test func slowHeadersGet408AfterTheHeaderTimeout() throws {
        let server = try TestServer(configure: { $0.headerTimeout = .milliseconds(300) })
        defer { server.stop() }
        let socket = try server.connect()
        let start = MonotonicClock.nanoseconds()
        try socket.send("GET / HTTP/1.1\r\nHost: t\r\n")
        usleep(100_000)
        try socket.send("X-Slow: 1\r\n") // trickling bytes must not extend the deadline
        var reader = ResponseReader(socket: socket)
        let response = try reader.next()
        let elapsed = millisecondsSince(start)
        #expect(response.status == 408)
        #expect(elapsed >= 290 && elapsed < 2000, "408 after \(elapsed) ms")
        #expect(try reader.isClosedByPeer())
    }

    @Test func slowClientsDoNotDelayANormalRequest() throws {
        let server = try TestServer(configure: { $0.headerTimeout = .seconds(5) })
        defer { server.stop() }
        let slow = try (0..<50).map { _ in try server.connect() }
        for socket in slow { try socket.send("GET / HTTP/1.1\r\nHost:") }
        let start = MonotonicClock.nanoseconds()
        #expect(try server.get("/").status == 200)
        #expect(millisecondsSince(start) < 100)
    }

    @Test func idleKeepAliveConnectionsAreClosedQuietly() throws {
        let server = try TestServer(configure: { $0.idleTimeout = .milliseconds(200) })
        defer { server.stop() }
        let socket = try server.connect()
        var reader = ResponseReader(socket: socket)
        try socket.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try reader.next().status == 200)
        let start = MonotonicClock.nanoseconds()
        #expect(try reader.isClosedByPeer())
        #expect(millisecondsSince(start) >= 150)
    }

    @Test func connectionsOverTheCapGet503AndAreClosed() throws {
        let server = try TestServer(configure: { $0.maxConnections = 2 })
        defer { server.stop() }
        let first = try server.connect(), second = try server.connect()
        var firstReader = ResponseReader(socket: first)
        try first.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try firstReader.next().status == 200)
        _ = second
        let third = try server.connect()
        try third.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        var reader = ResponseReader(socket: third)
        let response = try reader.next()
        #expect(response.status == 503)
        #expect(response.headers["Retry-After"] != nil)
        #expect(try reader.isClosedByPeer())
        // The held connections still work, and a slot frees up once one closes.
        try first.send("GET /calc HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try firstReader.next().status == 200)
        second.close()
        // `third` is still open on our side, so the server lingers on it (reading until our
        // EOF, at most `lingerTimeout`, 2 s) before its slot frees too: allow for either.
        var status = 0
        for _ in 0..<150 where status != 200 {
            usleep(20_000)
            status = try server.get("/").status
        }
        #expect(status == 200)
    }

    @Test func shutdownFinishesInFlightResponsesStopsAcceptingAndReturnsQuickly() throws {
        var router = Router()
        router.handle("/slow") { _, responder in
            Thread.detach { usleep(300_000); responder.respond(.text(.ok, "finished")) }
        }
        let server = try TestServer(router: router)
        let busy = try server.connect()
        try busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        let idle = try server.connect()
        usleep(50_000)
        let start = MonotonicClock.nanoseconds()
        let done = Recorder()
        Thread.detach { [server] in server.stop(); done.mark() }
        var reader = ResponseReader(socket: busy)
        let response = try reader.next()
        #expect(response.status == 200)
        #expect(response.text == "finished\n")
        #expect(response.headers["Connection"] == "close")
        #expect(try reader.isClosedByPeer())
        #expect(try idle.receive().isEmpty)
        #expect(done.wait(seconds: 3))
        #expect(millisecondsSince(start) < 2000)
        #expect(throws: POSIXError.self) { try BlockingSocket(host: "127.0.0.1", port: server.port, timeout: .seconds(1)) }
    }

    @Test func lingeringRequestsAreCutAtTheGracePeriod() throws {
        var router = Router()
        router.handle("/never") { _, responder in Thread.detach { usleep(3_000_000); responder.respond(.text(.ok)) } }
        let server = try TestServer(configure: { $0.shutdownGrace = .milliseconds(300) }, router: router)
        let socket = try server.connect()
        try socket.send("GET /never HTTP/1.1\r\nHost: t\r\n\r\n")
        usleep(50_000)
        let start = MonotonicClock.nanoseconds()
        server.stop()
        #expect(millisecondsSince(start) < 1500)
        #expect(try socket.receive().isEmpty)
    }
}

/// A one-shot flag a test thread waits on.
final class Recorder: Sendable {
    private let marked = Atomic<Bool>(false)
    func mark() { marked.store(true, ordering: .releasing) }
    func wait(seconds: Int) -> Bool {
        for _ in 0..<(seconds * 100) {
            if marked.load(ordering: .acquiring) { return true }
            usleep(10_000)
        }
        return false
    }
}
