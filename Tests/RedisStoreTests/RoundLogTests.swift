import RedisStore
import Posix
import Testing

@Suite struct RoundLogTests {
    @Test func appendsAChainAndReadsItBackWithOffsets() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let records = chain(5)
        var receipts: [AppendReceipt] = []
        for record in records { receipts.append(try await harness.store.append(record, lease: lease).get()) }
        #expect(Set(receipts.map(\.epoch)).count == 1)
        #expect(receipts[0].epoch.count == 32)

        let page = try await harness.store.readLog(draw: lease.draw).get()
        #expect(page.epoch == receipts[0].epoch)
        #expect(page.entries.map(\.offset) == receipts.map(\.offset))
        #expect(page.entries.map(\.index) == records.map(\.index))
        #expect(page.entries.map(\.hash) == records.map(\.hash))
        #expect(page.entries.map(\.prev) == records.map(\.prev))
        #expect(page.entries.map(\.json) == records.map(\.json))
        #expect(page.entries.map(\.idempotencyKey) == records.map(\.idempotencyKey))
        #expect(page.entries.allSatisfy { $0.token == lease.token })

        // Reading from an offset includes it.
        let tail = try await harness.store.readLog(draw: lease.draw, from: receipts[3].offset).get()
        #expect(tail.entries.map(\.index) == [3, 4])
    }

    @Test func refusesATokenThatIsNoLongerCurrent() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        #expect(try await harness.store.releaseLease(lease).get())
        guard case .acquired(let newer) = try await harness.store.acquireLease(draw: lease.draw, owner: "b", ttl: .seconds(30)).get() else {
            throw TestFailure("the released lease was not acquired")
        }
        let refused = await harness.store.append(chain(1)[0], lease: lease)
        #expect(refused.error == .fenced("token \(lease.token) is not current (fence \(newer.token))"))
        #expect(try await harness.store.readLog(draw: lease.draw).get().entries.isEmpty)
        #expect(try await harness.store.append(chain(1)[0], lease: newer).get().offset.isEmpty == false)
    }

    @Test func refusesALeaseThatExpiredEvenWhenNobodyTookItOver() async throws {
        let (server, harness, lease) = try await leasedDraw(ttl: .milliseconds(100))
        defer { harness.shutdown(); server.stop() }
        let leaseKey = RedisDrawKeys(code: lease.draw).lease
        #expect(await eventually { await harness.client.command(["EXISTS", leaseKey]).value == .integer(0) })
        let refused = await harness.store.append(chain(1)[0], lease: lease)
        #expect(refused.error == .fenced("the lease of token \(lease.token) has expired"))
        #expect(try await harness.store.readLog(draw: lease.draw).get().entries.isEmpty)
    }

    @Test func refusesARecordThatDoesNotFollowTheLastStoredHash() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let records = chain(2)
        var orphan = records[0]
        orphan.prev = "f00d"
        #expect(await harness.store.append(orphan, lease: lease).error == .chainMismatch(lastHash: LogRecord.genesisPrev))
        _ = try await harness.store.append(records[0], lease: lease).get()
        var fork = records[1]
        fork.prev = "hash-other-0"
        #expect(await harness.store.append(fork, lease: lease).error == .chainMismatch(lastHash: records[0].hash))
        _ = try await harness.store.append(records[1], lease: lease).get()
        #expect(try await harness.store.readLog(draw: lease.draw).get().entries.map(\.hash) == records.map(\.hash))
    }

    @Test func refusesAReusedIdempotencyKeyAndNamesTheFirstOffset() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let records = chain(2)
        let first = try await harness.store.append(records[0], lease: lease).get()
        // A retry after an unknown outcome learns that the first attempt landed.
        #expect(await harness.store.append(records[0], lease: lease).error == .duplicate(offset: first.offset))
        var reused = records[1]
        reused.idempotencyKey = records[0].idempotencyKey
        #expect(await harness.store.append(reused, lease: lease).error == .duplicate(offset: first.offset))
        #expect(try await harness.store.readLog(draw: lease.draw).get().entries.count == 1)
    }

    @Test func fallsBackToEvalWhenRedisForgotTheScript() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let records = chain(2)
        _ = try await harness.store.append(records[0], lease: lease).get()
        #expect(await harness.client.command(["SCRIPT", "FLUSH"]).value == .status("OK"))
        _ = try await harness.store.append(records[1], lease: lease).get()
        #expect(try await harness.store.readLog(draw: lease.draw).get().entries.count == 2)
    }

    @Test func aStaleOwnerWhoseLeaseWasTakenOverCannotAppend() async throws {
        let server = try RedisServer()
        try server.start()
        defer { server.stop() }
        let a = try Harness(endpoint: server.endpoint)
        defer { a.shutdown() }
        let b = try Harness(endpoint: server.endpoint)
        defer { b.shutdown() }
        let draw = uniqueDraw()
        guard case .acquired(let old) = try await a.store.acquireLease(draw: draw, owner: "a", ttl: .seconds(30)).get() else {
            throw TestFailure("a free lease was not acquired")
        }
        let records = chain(3)
        _ = try await a.store.append(records[0], lease: old).get()
        // a stalls past its lease (made to expire now, rather than waited for: a busy test process
        // must not be able to outlast a short lease before the first append); b takes over,
        // resyncs and carries on.
        #expect(await b.client.command(["PEXPIRE", RedisDrawKeys(code: draw).lease, "1"]).value == .integer(1))
        var taken: OwnerLease?
        #expect(await eventually {
            if case .acquired(let lease)? = await b.store.acquireLease(draw: draw, owner: "b", ttl: .seconds(30)).value { taken = lease }
            return taken != nil
        })
        let newOwner = try #require(taken)
        let (_, seen) = try await b.store.catchUp(draw: draw, from: ChainCursor()).get()
        #expect(seen.map(\.hash) == [records[0].hash])
        _ = try await b.store.append(records[1], lease: newOwner).get()
        // a wakes up and tries to write what it would have written: both refused as fenced.
        #expect(await a.store.append(records[1], lease: old).error == .fenced("token \(old.token) is not current (fence \(newOwner.token))"))
        var alternative = records[1]
        alternative.prev = records[0].hash
        alternative.hash = "hash-a-1"
        alternative.idempotencyKey = "a-1"
        #expect(await a.store.append(alternative, lease: old).error == .fenced("token \(old.token) is not current (fence \(newOwner.token))"))
        #expect(await a.store.renewLease(old, ttl: .seconds(30)).error == .fenced("the lease of token \(old.token) is no longer held"))
        let entries = try await a.store.readLog(draw: draw).get().entries
        #expect(entries.map(\.hash) == [records[0].hash, records[1].hash])
        #expect(entries.map(\.token) == [old.token, newOwner.token])
    }

    @Test func catchUpReadsPageByPageAndOnlyWhatIsNew() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let records = chain(7)
        for record in records.prefix(5) { _ = try await harness.store.append(record, lease: lease).get() }
        let (cursor, first) = try await harness.store.catchUp(draw: lease.draw, from: ChainCursor(), pageSize: 2).get()
        #expect(first.map(\.index) == [0, 1, 2, 3, 4])
        #expect(cursor.nextIndex == 5 && cursor.lastHash == records[4].hash)
        for record in records.suffix(2) { _ = try await harness.store.append(record, lease: lease).get() }
        let (advanced, next) = try await harness.store.catchUp(draw: lease.draw, from: cursor, pageSize: 2).get()
        #expect(next.map(\.index) == [5, 6])
        let (_, nothing) = try await harness.store.catchUp(draw: lease.draw, from: advanced, pageSize: 2).get()
        #expect(nothing.isEmpty)
    }

    @Test func catchUpReportsALostTail() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        for record in chain(3) { _ = try await harness.store.append(record, lease: lease).get() }
        let (cursor, _) = try await harness.store.catchUp(draw: lease.draw, from: ChainCursor()).get()
        // As if Redis lost its last write: the entry our cursor stands on is gone.
        let last = try #require(cursor.offset)
        #expect(await harness.client.command(["XDEL", RedisDrawKeys(code: lease.draw).log, last]).value == .integer(1))
        #expect(await harness.store.catchUp(draw: lease.draw, from: cursor).error == .broken(.offsetMissing(last)))
    }

    @Test func catchUpReportsAnEpochChangeWhenTheLogWasLostAndRestarted() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        for record in chain(3) { _ = try await harness.store.append(record, lease: lease).get() }
        let (cursor, _) = try await harness.store.catchUp(draw: lease.draw, from: ChainCursor()).get()
        let keys = RedisDrawKeys(code: lease.draw)
        #expect(await harness.client.command(["DEL", keys.log, keys.epoch, keys.idempotency]).value == .integer(3))
        for record in chain(4, tag: "again") { _ = try await harness.store.append(record, lease: lease).get() }
        guard case .broken(.epochChanged(let expected, let found))? = await harness.store.catchUp(draw: lease.draw, from: cursor).error else {
            Issue.record("the epoch change was not reported")
            return
        }
        #expect(expected == cursor.epoch && found != expected)
    }
}
