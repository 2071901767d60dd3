import Cluster
import Testing

@Suite struct RedisRestartTests {
    @Test func acknowledgedAppendsSurviveAKilledRedisAndTheClientReconnectsByItself() async throws {
        let server = try RedisServer()
        try server.start()
        defer { server.stop() }
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown() }
        let store = harness.store
        guard case .acquired(let lease) = try await store.acquireLease(draw: uniqueDraw(), owner: "a", ttl: .seconds(120)).get() else {
            throw TestFailure("a free lease was not acquired")
        }
        let records = chain(400)
        let (cursor, _) = try await store.catchUp(draw: lease.draw, from: ChainCursor()).get()

        // Appends go out pipelined; Redis is killed while they are in flight.
        let acknowledged = Collected<Int>()
        let failed = Collected<Int>()
        harness.loop.execute {
            for record in records {
                store.append(record, lease: lease) { result in
                    switch result {
                    case .success: acknowledged.append(record.index)
                    case .failure: failed.append(record.index)
                    }
                }
            }
        }
        #expect(await eventually { acknowledged.all.count >= 50 })
        server.crash()
        #expect(await eventually { acknowledged.all.count + failed.all.count == records.count })
        #expect(await eventually { await harness.state() != .ready })
        let acked = acknowledged.all
        #expect(acked == Array(0..<acked.count), "acknowledgements come in order")

        try server.restart()
        // Nobody tells the client: it reconnects with backoff.
        #expect(await eventually { await harness.state() == .ready })
        #expect(await harness.readyCount() >= 2)

        let (after, entries) = try await store.catchUp(draw: lease.draw, from: cursor).get()
        // Every acknowledged append is there; anything beyond is a prefix of the rest (an
        // append that ran but whose reply was lost), never a hole.
        #expect(entries.count >= acked.count)
        #expect(entries.map(\.hash) == records.prefix(entries.count).map(\.hash))
        #expect(after.epoch != nil)

        // The lease survived too (its expiry is in the AOF), so the owner carries on where the log ends.
        let next = records[entries.count]
        _ = try await store.append(next, lease: lease).get()
        let (_, more) = try await store.catchUp(draw: lease.draw, from: after).get()
        #expect(more.map(\.hash) == [next.hash])
    }
}
