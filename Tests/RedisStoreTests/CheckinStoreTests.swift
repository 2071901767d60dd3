import RedisStore
import Posix
import Testing

/// `CheckinStore`: check-in rows and settings in Redis, written only with a current fencing
/// token, together with the draw's settings when a write changes them.
@Suite struct CheckinStoreTests {
    private func write(_ store: CheckinStore, _ write: CheckinStore.Write, lease: OwnerLease) async -> Result<Void, ClusterError> {
        await store.client.onLoop { done in store.write(write, lease: lease) { done($0) } }
    }

    private func read(_ store: CheckinStore, _ code: String) async throws -> (settings: String?, rows: [String]) {
        try await store.client.onLoop { done in store.read(draw: code) { done($0) } }.get()
    }

    @Test func writesRowsSettingsAndConfigTogetherAndReadsThemBack() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let store = CheckinStore(client: harness.client)
        #expect(try await read(store, lease.draw) == (nil, []))
        try await write(store, .init(settings: #"{"open":true}"#, rows: [("A1", #"{"id":"A1","seq":1}"#), ("B2", #"{"id":"B2","seq":2}"#)]),
                        lease: lease).get()
        var read = try await read(store, lease.draw)
        #expect(read.settings == #"{"open":true}"# && read.rows.sorted() == [#"{"id":"A1","seq":1}"#, #"{"id":"B2","seq":2}"#])

        // Closing: settings, a row and the draw's config in one write.
        try await write(store, .init(config: #"{"pool":"locked"}"#, settings: #"{"open":false}"#, rows: [("A1", #"{"id":"A1","removed":"x"}"#)]),
                        lease: lease).get()
        read = try await self.read(store, lease.draw)
        #expect(read.settings == #"{"open":false}"# && read.rows.contains(#"{"id":"A1","removed":"x"}"#) && read.rows.count == 2)
        let meta = RedisDrawKeys(code: lease.draw).meta
        #expect(await harness.client.command(["HGET", meta, "config"]).value == .bulk(Array(#"{"pool":"locked"}"#.utf8)))

        // Erase replaces every row: nothing of the old rows is left.
        try await write(store, .init(settings: #"{"open":false}"#, rows: [("A1", #"{"id":"A1"}"#)], replaceAll: true), lease: lease).get()
        #expect(try await self.read(store, lease.draw).rows == [#"{"id":"A1"}"#])
    }

    @Test func aStaleOrExpiredTokenWritesNothing() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let store = CheckinStore(client: harness.client)
        #expect(try await harness.store.releaseLease(lease).get())
        // Released, nobody holds it yet: the lease is not held with this token.
        #expect(await write(store, .init(settings: "s", rows: [("A1", "row")]), lease: lease).error
            == .fenced("the lease of token \(lease.token) has expired"))
        guard case .acquired(let newer) = try await harness.store.acquireLease(draw: lease.draw, owner: "b", ttl: .seconds(30)).get() else {
            throw TestFailure("the released lease was not acquired")
        }
        #expect(await write(store, .init(config: "c", settings: "s", rows: [("A1", "row")]), lease: lease).error
            == .fenced("token \(lease.token) is not current (fence \(newer.token))"))
        #expect(try await read(store, lease.draw) == (nil, []))
        #expect(await harness.client.command(["HEXISTS", RedisDrawKeys(code: lease.draw).meta, "config"]).value == .integer(0))
        try await write(store, .init(settings: "s", rows: [("A1", "row")]), lease: newer).get()
        #expect(try await read(store, lease.draw) == ("s", ["row"]))
    }
}
