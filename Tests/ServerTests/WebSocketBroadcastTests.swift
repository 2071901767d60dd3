import Glibc
import Locking
import Testing
import WebSocketClient
import WebSocketCore
@testable import Server
import TestSupport

/// A room endpoint at `/ws/room` whose sessions join `group`.
/// The loops sessions were accepted on.
private final class LoopRecorder: Sendable {
    let seen = Lock<Set<Int>>([])
}

private func roomServer(loops: Int = 1, group: BroadcastGroup, loopsSeen: LoopRecorder? = nil,
                        configure: (inout WebSocketEndpointConfiguration) -> Void = { _ in }) throws -> TestServer {
    var endpoint = WebSocketEndpointConfiguration()
    configure(&endpoint)
    let configuration = endpoint
    return try TestServer(echo: false, configure: { $0.loopCount = loops }, extra: { router in
        router.webSocket(prefix: "/ws/room", configuration: configuration) { session in
            loopsSeen?.seen.withLock { _ = $0.insert(session.loop.index) }
            group.join(session)
        }
    })
}

private func sequenceNumber(_ message: WebSocketClient.Message) -> Int? {
    guard case .text(let text) = message else { return nil }
    return Int(text.prefix { $0 != " " })
}

@Suite struct WebSocketBroadcastTests {
    @Test func broadcastReachesEveryMemberInOrderAcrossLoops() throws {
        let group = BroadcastGroup()
        let loopsSeen = LoopRecorder()
        let server = try roomServer(loops: 2, group: group, loopsSeen: loopsSeen)
        defer { server.stop() }
        // Some clients take compression: they share the compressed variant of each frame.
        let clients = try (0..<200).map { try server.webSocket("/ws/room", deflate: $0 % 10 == 0) }
        #expect(waitUntil { group.count == 200 })
        #expect(loopsSeen.seen.withLock { $0 } == [0, 1])
        let padding = String(repeating: "roll ", count: 100)
        for index in 0..<20 {
            group.broadcast(text: "\(index) \(index % 2 == 0 ? padding : "")", stream: .reliable)
        }
        for client in clients {
            var received: [Int] = []
            for _ in 0..<20 { received.append(try sequenceNumber(client.receiveMessage()) ?? -1) }
            #expect(received == Array(0..<20))
        }
        #expect(try server.metricValue("tombola_ws_messages_sent_total") == 4000)
    }

    @Test func membersLeaveWhenTheyClose() throws {
        let group = BroadcastGroup()
        let server = try roomServer(group: group)
        defer { server.stop() }
        let first = try server.webSocket("/ws/room")
        let second = try server.webSocket("/ws/room")
        #expect(waitUntil { group.count == 2 })
        try first.close()
        #expect(try first.receiveCloseCode() == 1000)
        #expect(waitUntil { group.count == 1 })
        group.broadcast(text: "0 still here", stream: .reliable)
        #expect(try second.receiveMessage() == .text("0 still here"))
    }

    @Test func aClientThatNeverReadsSkipsStaleTicksWhileOthersKeepUp() throws {
        let group = BroadcastGroup()
        let server = try roomServer(group: group)
        defer { server.stop() }
        let slow = try server.webSocket("/ws/room")
        let fast = try (0..<3).map { _ in try server.webSocket("/ws/room") }
        #expect(waitUntil { group.count == 4 })
        let padding = String(repeating: "x", count: 128 * 1024)
        var slowest = Duration.zero
        var frames = 0
        var framesAfterSkipping = 0
        // Until the kernel buffers are full and ticks are skipped for the slow client, then 20 more.
        while framesAfterSkipping < 20 && frames < 1000 {
            let sent = ContinuousClock.now
            group.broadcast(text: "\(frames) \(padding)", stream: .latestValue)
            for client in fast {
                #expect(try sequenceNumber(client.receiveMessage()) == frames)
            }
            slowest = max(slowest, ContinuousClock.now - sent)
            frames += 1
            if framesAfterSkipping > 0 {
                framesAfterSkipping += 1
            } else if frames % 10 == 0, try (server.metricValue("tombola_ws_latest_value_skipped_total") ?? 0) > 0 {
                framesAfterSkipping = 1
            }
        }
        // A broadcast held up by the client that never reads would never arrive (each receive
        // gives up after 5 s); 4 s leaves room for a loaded machine.
        #expect(slowest < .seconds(4), "a fast client waited \(slowest) for a tick")
        #expect(try (server.metricValue("tombola_ws_latest_value_skipped_total") ?? 0) > 0)
        // The slow client gets an in-order subset that ends with the newest tick.
        var received: [Int] = []
        while received.last != frames - 1 {
            guard let number = try sequenceNumber(slow.receiveMessage(timeout: .seconds(10))) else { break }
            received.append(number)
        }
        #expect(received.last == frames - 1)
        #expect(received.count < frames)
        #expect(received == received.sorted())
    }

    @Test func aClientTooFarBehindOnReliableMessagesIsClosedWith1013() throws {
        let group = BroadcastGroup()
        let server = try roomServer(group: group) {
            $0.reliableHardLimit = 256 * 1024
            $0.closeTimeout = .seconds(20)
        }
        defer { server.stop() }
        let slow = try server.webSocket("/ws/room")
        let fast = try server.webSocket("/ws/room")
        #expect(waitUntil { group.count == 2 })
        let padding = String(repeating: "r", count: 128 * 1024)
        var frames = 0
        var slowDropped = false
        // Until the kernel buffers are full and the slow client is dropped.
        while !slowDropped && frames < 1000 {
            group.broadcast(text: "\(frames) \(padding)", stream: .reliable)
            #expect(try sequenceNumber(fast.receiveMessage()) == frames)
            frames += 1
            if frames % 10 == 0 {
                // Both members are on one loop: once the fast one has a frame, both were served.
                slowDropped = try (server.metricValue("tombola_ws_messages_sent_total") ?? 0) < 2 * frames
            }
        }
        #expect(slowDropped)
        #expect(try slow.receiveCloseCode(timeout: .seconds(20)) == 1013)
        #expect(slow.waitForSocketClose())
        #expect(waitUntil { group.count == 1 })
        #expect(try server.metricValue("tombola_ws_sessions_closed_total{code=\"1013\"}") == 1)
    }

    @Test func eachLatestValueSlotCatchesUpWithItsOwnNewestFrame() throws {
        let group = BroadcastGroup()
        let server = try roomServer(group: group)
        defer { server.stop() }
        let slow = try server.webSocket("/ws/room")
        #expect(waitUntil { group.count == 1 })
        let padding = String(repeating: "t", count: 128 * 1024)
        var index = 0
        // Ticks until the client is behind and ticks are being skipped.
        while try (server.metricValue("tombola_ws_latest_value_skipped_total") ?? 0) == 0 && index < 400 {
            group.broadcast(text: "\(index) \(padding)", stream: .latestValue)
            index += 1
        }
        group.broadcast(text: "-1 viewers 42", stream: .latestValueSlot(1))
        for _ in 0..<5 {
            group.broadcast(text: "\(index) \(padding)", stream: .latestValue)
            index += 1
        }
        var sawViewers = false
        var last = -1
        // After the drain the newest skipped frame of each slot arrives, in either order.
        while last != index - 1 || !sawViewers {
            let message = try slow.receiveMessage(timeout: .seconds(10))
            if message == .text("-1 viewers 42") { sawViewers = true } else { last = sequenceNumber(message) ?? -2 }
            if last == -2 { break }
        }
        #expect(last == index - 1)
        #expect(sawViewers)
    }

    @Test func aSessionHandleSendsFromAnyThread() throws {
        let recorder = HandleRecorder()
        let server = try TestServer(echo: false, extra: { router in
            router.webSocket(prefix: "/ws/handle") { session in recorder.handles.withLock { $0.append(session.handle) } }
        })
        defer { server.stop() }
        let client = try server.webSocket("/ws/handle")
        #expect(waitUntil { recorder.handles.withLock { $0.count } == 1 })
        let handle = try #require(recorder.handles.withLock { $0.first })
        handle.send(text: "from the test thread")
        #expect(try client.receiveMessage() == .text("from the test thread"))
        handle.close(code: .tryAgainLater, reason: "bye")
        #expect(try client.receive() == .close(code: 1013, reason: "bye"))
    }
}

private final class HandleRecorder: Sendable {
    let handles = Lock<[WebSocketSessionHandle]>([])
}
