import Dispatch
import Glibc
import Synchronization
import Testing
import WebSocketClient
import WebSocketCore
@testable import Server
import TestSupport

@Suite struct WebSocketLifecycleTests {
    private func heartbeatServer() throws -> TestServer {
        try TestServer(echo: false, extra: { router in
            router.webSocket(prefix: "/ws/beat",
                             configuration: WebSocketEndpointConfiguration(pingInterval: .milliseconds(100),
                                                                           idleTimeout: .milliseconds(500))) { _ in }
        })
    }

    @Test func pingsAQuietClientAndKeepsOneThatAnswers() throws {
        let server = try heartbeatServer()
        defer { server.stop() }
        let client = try server.webSocket("/ws/beat")
        var pings = 0
        // `receive` answers each ping with a pong, which counts as a sign of life. Six pings
        // span at least 600 ms, past the 500 ms idle timeout; a deadline, not a count of
        // milliseconds, so a slow machine only makes it take longer.
        let until = ContinuousClock.now + .seconds(20)
        while pings < 6 && ContinuousClock.now < until {
            if case .ping = try client.receive(timeout: .seconds(5)) { pings += 1 }
        }
        #expect(pings >= 6)
        #expect(try server.metricValue("tombola_ws_open_sessions") == 1)
    }

    @Test func dropsAClientThatStaysSilent() throws {
        let server = try heartbeatServer()
        defer { server.stop() }
        let client = try server.webSocket("/ws/beat")
        // Reading raw bytes sends no pongs, so the client looks dead to the server.
        #expect(client.waitForSocketClose(timeout: .seconds(3)))
        #expect(try waitUntil { try server.metricValue("tombola_ws_sessions_closed_total{code=\"1006\"}") == 1 })
    }

    @Test func gracefulShutdownSendsGoingAway() throws {
        let server = try TestServer(echo: true)
        let client = try server.webSocket()
        try client.send(text: "hi")
        #expect(try client.receiveMessage() == .text("hi"))
        let stopped = DispatchSemaphore(value: 0)
        let box = UncheckedBox(server)
        DispatchQueue.global().async {
            box.value.stop()
            stopped.signal()
        }
        // Receiving the close frame answers it, so the server can finish at once.
        #expect(try client.receiveCloseCode() == 1001)
        #expect(client.waitForSocketClose())
        #expect(stopped.wait(timeout: .now() + 5) == .success)
    }

    @Test func onCloseRunsOnceWhenTheClientLeaves() throws {
        let closes = Atomic<Int>(0)
        let server = try TestServer(echo: false, extra: { router in
            router.webSocket(prefix: "/ws/x") { session in
                session.onClose = { closes.wrappingAdd(1, ordering: .relaxed) }
            }
        })
        defer { server.stop() }
        let client = try server.webSocket("/ws/x")
        try client.close(code: 1000)
        #expect(try client.receiveCloseCode() == 1000)
        #expect(client.waitForSocketClose())
        #expect(waitUntil { closes.load(ordering: .relaxed) == 1 })
        // Two requests answered by the server's only loop: whatever the close still had to run there has run.
        #expect(try server.get("/").status == 200 && server.get("/").status == 200)
        #expect(closes.load(ordering: .relaxed) == 1)
    }
}

/// Hands a non-Sendable test object to another thread that is its only user meanwhile.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
