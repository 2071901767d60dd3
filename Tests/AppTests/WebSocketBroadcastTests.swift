import Glibc
import Synchronization
import Testing
import WebSocketClient
import WebSocketCore
@testable import App

/// A room endpoint at `/ws/room` whose sessions join `group`.
/// The loops sessions were accepted on.
private final class LoopRecorder: Sendable {
    let seen = Mutex<Set<Int>>([])
}

private func roomServer(loops: Int = 1, group: BroadcastGroup, loopsSeen: LoopRecorder? = nil,
                        configure: (inout WebSocketEndpointConfiguration) -> Void = { _ in }) throws -> TestServer {
    var endpoint = WebSocketEndpointConfiguration()
    configure(&endpoint)
    let configuration = endpoint
    return try TestServer(webSockets: { $0.loopCount = loops }, extra: { router in
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
        // Half the clients take compression: they share the compressed variant of each frame.
        let clients = try (0..<200).map { try server.webSocket("/ws/room", deflate: $0 % 2 == 0) }
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
        let frames = 120  // 15 MiB: more than the kernel buffers hold for the slow client
        var slowest = Duration.zero
        for index in 0..<frames {
            let sent = ContinuousClock.now
            group.broadcast(text: "\(index) \(padding)", stream: .latestValue)
            for client in fast {
                #expect(try sequenceNumber(client.receiveMessage()) == index)
            }
            slowest = max(slowest, ContinuousClock.now - sent)
        }
        #expect(slowest < .seconds(1), "a fast client waited \(slowest) for a tick")
        #expect(try (server.metricValue("tombola_ws_latest_value_skipped_total") ?? 0) > 0)
        // The slow client gets a gapless-in-order subset that ends with the newest tick.
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
        let frames = 120
        for index in 0..<frames {
            group.broadcast(text: "\(index) \(padding)", stream: .reliable)
            #expect(try sequenceNumber(fast.receiveMessage()) == index)
        }
        #expect(try slow.receiveCloseCode(timeout: .seconds(20)) == 1013)
        #expect(slow.waitForSocketClose())
        #expect(waitUntil { group.count == 1 })
        #expect(try server.metricValue("tombola_ws_sessions_closed_total{code=\"1013\"}") == 1)
    }
}
