import Glibc
import Posix
import Synchronization
import Testing
@testable import Server
import TestSupport

@Suite struct ServerLifecycleTests {
    @Test func slowHeadersGet408AfterTheHeaderTimeout() throws {
        let server = try TestServer(configure: { $0.headerTimeout = .milliseconds(300) })
        defer { server.stop() }
        let socket = try server.connect()
        let start = MonotonicClock.nanoseconds()
        try socket.send("GET / HTTP/1.1\r\nHost: t\r\n")
        // Trickling bytes must not extend the deadline: a header line every 100 ms (the
        // subject) until the answer is here. Were the deadline moved by each line, no answer
        // would come while we trickle; 10 s of trickling is the guard against that.
        while socket.unreadByteCount == 0 && millisecondsSince(start) < 10_000 {
            try? socket.send("X-Slow: 1\r\n")
            usleep(100_000)  // the trickle's pace (the subject)
        }
        var reader = ResponseReader(socket: socket)
        let response = try reader.next()
        let elapsed = millisecondsSince(start)
        #expect(response.status == 408)
        #expect(elapsed >= 290 && elapsed < 10_000, "408 after \(elapsed) ms")
        #expect(try reader.isClosedByPeer())
    }

    @Test func slowClientsDoNotDelayANormalRequest() throws {
        let server = try TestServer(configure: { $0.headerTimeout = .seconds(60) })
        defer { server.stop() }
        let slow = try (0..<50).map { _ in try server.connect() }
        for socket in slow { try socket.send("GET / HTTP/1.1\r\nHost:") }
        let start = MonotonicClock.nanoseconds()
        #expect(try server.get("/").status == 200)
        // A server the slow clients held up would answer after their 60 s header timeout (or
        // never: the socket gives up after 5 s); 4 s leaves room for a loaded machine.
        #expect(millisecondsSince(start) < 4000)
    }

    @Test func idleKeepAliveConnectionsAreClosedQuietly() throws {
        let server = try TestServer(configure: { $0.idleTimeout = .milliseconds(200) })
        defer { server.stop() }
        let socket = try server.connect()
        var reader = ResponseReader(socket: socket)
        // Measured from before the request: the idle timer starts after it, so load can only lengthen this.
        let start = MonotonicClock.nanoseconds()
        try socket.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try reader.next().status == 200)
        #expect(try reader.isClosedByPeer())
        #expect(millisecondsSince(start) >= 190)
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
        try first.send("GET /calc.html HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try firstReader.next().status == 200)
        second.close()
        // `third` is still open on our side, so the server lingers on it (reading until our
        // EOF, at most `lingerTimeout`, 2 s) before its slot frees too: allow for either.
        #expect(try waitUntil(timeout: .seconds(10)) { try server.get("/").status == 200 })
    }

    @Test func shutdownFinishesInFlightResponsesStopsAcceptingAndReturnsQuickly() throws {
        var router = Router()
        let entered = Recorder()
        router.handle("/slow") { _, responder in
            entered.mark()
            Thread.detach { usleep(300_000); responder.respond(.text(.ok, "finished")) }  // a slow handler is the subject
        }
        let server = try TestServer(router: router)
        let busy = try server.connect()
        try busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        // An idle keep-alive connection, surely accepted: it has had an answer.
        let idle = try server.connect()
        try idle.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        var idleReader = ResponseReader(socket: idle)
        #expect(try idleReader.next().status == 200)
        #expect(entered.wait(seconds: 10))
        let start = MonotonicClock.nanoseconds()
        let done = Recorder()
        Thread.detach { [server] in server.stop(); done.mark() }
        var reader = ResponseReader(socket: busy)
        let response = try reader.next()
        #expect(response.status == 200)
        #expect(response.text == "finished\n")
        #expect(response.headers["Connection"] == "close")
        #expect(try reader.isClosedByPeer())
        #expect(try idleReader.isClosedByPeer())
        #expect(done.wait(seconds: 10))
        // The handler's 300 ms, not the 1.5 s grace: an idle connection does not hold up a stop.
        // Generous for a loaded machine, below what waiting out the grace and more would take.
        #expect(millisecondsSince(start) < 4000)
        #expect(throws: POSIXError.self) { try BlockingSocket(host: "127.0.0.1", port: server.port, timeout: .seconds(1)) }
    }

    @Test func lingeringRequestsAreCutAtTheGracePeriod() throws {
        var router = Router()
        let (entered, release) = (Recorder(), Recorder())
        router.handle("/never") { _, responder in
            entered.mark()
            // Answers only after the test is over (or 30 s), long past the grace period.
            Thread.detach { _ = release.wait(seconds: 30); responder.respond(.text(.ok)) }
        }
        let server = try TestServer(configure: { $0.shutdownGrace = .milliseconds(300) }, router: router)
        defer { release.mark() }
        let socket = try server.connect()
        try socket.send("GET /never HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(entered.wait(seconds: 10))
        let start = MonotonicClock.nanoseconds()
        server.stop()
        // The 300 ms grace, not the 30 s the handler would take; generous for a loaded machine.
        #expect(millisecondsSince(start) < 10_000)
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
            usleep(10_000)  // poll interval
        }
        return false
    }
}
