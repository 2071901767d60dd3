import RedisStore
import Locking
import Posix
import Testing

/// A thread-safe list the loop appends to and the test reads.
final class Collected<Value: Sendable>: Sendable {
    private let values = Lock<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

@Suite struct RedisSubscriberTests {
    @Test func deliversADrawsMessagesInPublicationOrder() async throws {
        let server = try RedisServer()
        try server.start()
        defer { server.stop() }
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown() }
        let subscriber = RedisSubscriber(endpoint: server.endpoint, loop: harness.loop, options: .forTests)
        defer { subscriber.close() }
        let draw = uniqueDraw()
        let other = uniqueDraw()
        let received = Collected<String>()
        let readies = Collected<Int>()
        harness.loop.execute {
            subscriber.onReady { readies.append(1) }
            subscriber.subscribe(RedisDrawKeys(code: draw).channel) { received.append(String(decoding: $0, as: UTF8.self)) }
        }
        subscriber.start()
        #expect(await eventually { readies.all.count == 1 })

        let count = 1000
        // Pipelined from the loop, interleaved with another draw's channel, which must not leak in.
        let store = harness.store
        let published: [Int64] = await harness.client.onLoop { done in
            var receivers: [Int64] = []
            for i in 0..<count {
                store.publish(draw: other, payload: Array("other \(i)".utf8)) { _ in }
                store.publish(draw: draw, payload: Array("tick \(i)".utf8)) { result in
                    receivers.append(result.value ?? -1)
                    if receivers.count == count { done(receivers) }
                }
            }
        }
        #expect(published.allSatisfy { $0 == 1 })
        #expect(await eventually { received.all.count >= count })
        #expect(received.all == (0..<count).map { "tick \($0)" })
    }

    @Test func resubscribesByItselfAfterItsConnectionIsKilled() async throws {
        let server = try RedisServer()
        try server.start()
        defer { server.stop() }
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown() }
        let subscriber = RedisSubscriber(endpoint: server.endpoint, loop: harness.loop, options: .forTests)
        defer { subscriber.close() }
        let draw = uniqueDraw()
        let received = Collected<String>()
        let readies = Collected<Int>()
        harness.loop.execute {
            subscriber.onReady { readies.append(1) }
            subscriber.subscribe(RedisDrawKeys(code: draw).channel) { received.append(String(decoding: $0, as: UTF8.self)) }
        }
        subscriber.start()
        #expect(await eventually { readies.all.count == 1 })
        _ = try await harness.store.publish(draw: draw, payload: Array("before".utf8)).get()
        #expect(await harness.client.command(["CLIENT", "KILL", "TYPE", "pubsub"]).value == .integer(1))
        // onReady fires again once the channel is confirmed on the new connection: the
        // moment an instance resyncs from the round log.
        #expect(await eventually { readies.all.count == 2 })
        _ = try await harness.store.publish(draw: draw, payload: Array("after".utf8)).get()
        #expect(await eventually { received.all.count == 2 })
        #expect(received.all == ["before", "after"])
    }
}
