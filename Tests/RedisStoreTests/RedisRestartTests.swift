import RedisStore
import Glibc
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
        let records = chain(2000)
        let (cursor, _) = try await store.catchUp(draw: lease.draw, from: ChainCursor()).get()

        // Appends go out pipelined; Redis is SIGKILLed from the loop the moment the 50th is
        // acknowledged, so the rest are in flight or queued when it dies.
        let acknowledged = Collected<Int>()
        let failed = Collected<Int>()
        let pid = server.pid
        harness.loop.execute {
            var acked = 0
            for record in records {
                store.append(record, lease: lease) { result in
                    switch result {
                    case .success:
                        acknowledged.append(record.index)
                        acked += 1
                        if acked == 50 { kill(pid, SIGKILL) }
                    case .failure:
                        failed.append(record.index)
                    }
                }
            }
        }
        #expect(await eventually { acknowledged.all.count + failed.all.count == records.count })
        #expect(await eventually { await harness.state() != .ready })
        server.crash()
        let acked = acknowledged.all
        #expect(acked == Array(0..<acked.count), "acknowledgements come in order")
        #expect(!failed.all.isEmpty, "appends were in flight when Redis died")

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
        try #require(entries.count < records.count)
        let next = records[entries.count]
        _ = try await store.append(next, lease: lease).get()
        let (_, more) = try await store.catchUp(draw: lease.draw, from: after).get()
        #expect(more.map(\.hash) == [next.hash])
    }
}
