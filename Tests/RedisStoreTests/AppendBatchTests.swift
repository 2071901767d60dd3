import RedisStore
import Posix
import Testing

/// `ClusterStore.appendBatch`: one host command's records and settings, all or nothing.
@Suite struct AppendBatchTests {
    @Test func appendsRecordsSettingsAndSealsTogether() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        var records = chain(3)
        records[2].seal = "nonce.ciphertext.tag"
        let receipt = try await harness.store.appendBatch(records, config: #"{"perStop":2}"#, idempotencyKey: "b-0", lease: lease).get()
        let page = try await harness.store.readLog(draw: lease.draw).get()
        #expect(page.entries.map(\.hash) == records.map(\.hash))
        #expect(page.entries.last?.offset == receipt.offset && page.epoch == receipt.epoch)
        #expect(page.entries.map(\.seal) == ["", "", "nonce.ciphertext.tag"])
        #expect(page.entries.allSatisfy { $0.token == lease.token && $0.idempotencyKey == "b-0" })
        let meta = RedisDrawKeys(code: lease.draw).meta
        #expect(await harness.client.command(["HGET", meta, "config"]).value == .bulk(Array(#"{"perStop":2}"#.utf8)))

        // Settings alone (configure writes no record) go through the same checks.
        let alone = try await harness.store.appendBatch([], config: #"{"perStop":3}"#, idempotencyKey: "c-1", lease: lease).get()
        #expect(alone.offset.isEmpty && alone.epoch == receipt.epoch)
        #expect(await harness.client.command(["HGET", meta, "config"]).value == .bulk(Array(#"{"perStop":3}"#.utf8)))
        #expect(try await harness.store.readLog(draw: lease.draw).get().entries.count == 3)
    }

    @Test func refusesTheWholeBatchOnABrokenLinkAStaleTokenOrAReusedKey() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let meta = RedisDrawKeys(code: lease.draw).meta
        var broken = chain(3)
        broken[2].prev = "not-the-hash-before"
        #expect(await harness.store.appendBatch(broken, config: "x", idempotencyKey: "b-0", lease: lease).error
            == .chainMismatch(lastHash: LogRecord.genesisPrev))
        #expect(try await harness.store.readLog(draw: lease.draw).get().entries.isEmpty)
        #expect(await harness.client.command(["HEXISTS", meta, "config"]).value == .integer(0))

        let first = try await harness.store.appendBatch(chain(2), config: nil, idempotencyKey: "b-0", lease: lease).get()
        let entries = try await harness.store.readLog(draw: lease.draw).get().entries
        #expect(entries.count == 2 && entries.last?.offset == first.offset)
        // A retry of a batch whose outcome was unknown learns where its first record landed.
        #expect(await harness.store.appendBatch(chain(1, startingAt: 2, after: "hash-r-1"), config: nil, idempotencyKey: "b-0",
                                                lease: lease).error == .duplicate(offset: entries[0].offset))
        #expect(try await harness.store.readLog(draw: lease.draw).get().entries.count == 2)

        #expect(try await harness.store.releaseLease(lease).get())
        guard case .acquired(let newer) = try await harness.store.acquireLease(draw: lease.draw, owner: "b", ttl: .seconds(30)).get() else {
            throw TestFailure("the released lease was not acquired")
        }
        let stale = await harness.store.appendBatch(chain(1, startingAt: 2, after: "hash-r-1"), config: "y", idempotencyKey: "b-2", lease: lease)
        #expect(stale.error == .fenced("token \(lease.token) is not current (fence \(newer.token))"))
        #expect(await harness.client.command(["HEXISTS", meta, "config"]).value == .integer(0))
        _ = try await harness.store.appendBatch(chain(1, startingAt: 2, after: "hash-r-1"), config: "y", idempotencyKey: "b-2", lease: newer).get()
        #expect(try await harness.store.readLog(draw: lease.draw).get().entries.map(\.token) == [lease.token, lease.token, newer.token])
    }
}
