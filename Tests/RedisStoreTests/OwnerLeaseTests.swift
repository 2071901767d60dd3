import RedisStore
import Posix
import Testing

@Suite struct OwnerLeaseTests {
    @Test func twoInstancesRacingForALeaseExactlyOneWins() async throws {
        let server = try RedisServer()
        try server.start()
        defer { server.stop() }
        let a = try Harness(endpoint: server.endpoint)
        defer { a.shutdown() }
        let b = try Harness(endpoint: server.endpoint)
        defer { b.shutdown() }
        for _ in 0..<25 {
            let draw = uniqueDraw()
            async let first = a.store.acquireLease(draw: draw, owner: "a", ttl: .seconds(10))
            async let second = b.store.acquireLease(draw: draw, owner: "b", ttl: .seconds(10))
            let outcomes = [try await first.get(), try await second.get()]
            let winners = outcomes.compactMap { outcome -> OwnerLease? in
                if case .acquired(let lease) = outcome { return lease }
                return nil
            }
            try #require(winners.count == 1, "outcomes: \(outcomes)")
            let winner = winners[0]
            #expect(winner.token == 1)
            #expect(outcomes.contains(.held(by: "\(winner.token):\(winner.owner)")))
        }
    }

    @Test func theFencingTokenGrowsWithEveryAcquisition() async throws {
        let server = try RedisServer()
        try server.start()
        defer { server.stop() }
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown() }
        let draw = uniqueDraw()
        var tokens: [Int64] = []
        for owner in ["a", "b", "a", "c"] {
            guard case .acquired(let lease) = try await harness.store.acquireLease(draw: draw, owner: owner, ttl: .seconds(10)).get() else {
                Issue.record("\(owner) did not acquire a free lease")
                return
            }
            tokens.append(lease.token)
            #expect(try await harness.store.releaseLease(lease).get() == true)
        }
        #expect(tokens == [1, 2, 3, 4])
    }

    @Test func onlyTheHolderCanRenewOrRelease() async throws {
        let server = try RedisServer()
        try server.start()
        defer { server.stop() }
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown() }
        let store = harness.store
        let draw = uniqueDraw()
        guard case .acquired(let lease) = try await store.acquireLease(draw: draw, owner: "a", ttl: .seconds(5)).get() else {
            Issue.record("a free lease was not acquired")
            return
        }
        // Another instance that claims the same token, or a later one, is not the holder.
        for impostor in [OwnerLease(draw: draw, owner: "b", token: lease.token, validUntil: 0),
                         OwnerLease(draw: draw, owner: "a", token: lease.token + 1, validUntil: 0)] {
            #expect(await store.renewLease(impostor, ttl: .seconds(60)).error == .fenced("the lease of token \(impostor.token) is no longer held"))
            #expect(try await store.releaseLease(impostor).get() == false)
        }
        #expect(await harness.client.command(["PTTL", RedisDrawKeys(code: draw).lease]).value?.integer ?? 0 <= 5000)
        let renewed = try await store.renewLease(lease, ttl: .seconds(30)).get()
        #expect(renewed.token == lease.token)
        #expect(renewed.validUntil > lease.validUntil)
        #expect(await harness.client.command(["PTTL", RedisDrawKeys(code: draw).lease]).value?.integer ?? 0 > 5000)
        #expect(try await store.releaseLease(renewed).get() == true)
        #expect(await store.renewLease(renewed, ttl: .seconds(5)).error == .fenced("the lease of token \(lease.token) is no longer held"))
    }

    @Test func anUnrenewedLeaseExpiresAndAnotherInstanceTakesItOverWithinTheLeaseTime() async throws {
        let server = try RedisServer()
        try server.start()
        defer { server.stop() }
        let a = try Harness(endpoint: server.endpoint)
        defer { a.shutdown() }
        let b = try Harness(endpoint: server.endpoint)
        defer { b.shutdown() }
        let draw = uniqueDraw()
        // Long enough that b's first try surely falls inside it on a loaded machine (a 2 s
        // lease was seen to expire before a starved b asked once).
        let ttl = Duration.seconds(4)
        guard case .acquired(let first) = try await a.store.acquireLease(draw: draw, owner: "a", ttl: ttl).get() else {
            Issue.record("a free lease was not acquired")
            return
        }
        // b polls, as a standby owner does; a never renews (it "died").
        var second: OwnerLease?
        var refusals = 0
        let started = MonotonicClock.nanoseconds()
        while second == nil && MonotonicClock.nanoseconds() - started < 10_000_000_000 {
            switch try await b.store.acquireLease(draw: draw, owner: "b", ttl: ttl).get() {
            case .acquired(let lease): second = lease
            case .held(let holder):
                #expect(holder == "\(first.token):a")
                refusals += 1
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let takeover = try #require(second)
        let tookOverAt = MonotonicClock.nanoseconds()
        #expect(takeover.token == first.token + 1)
        #expect(refusals > 0, "b should have been refused while a's lease held")
        // Safety: never before a's lease could have expired. Liveness: within the lease time
        // after it expired.
        #expect(tookOverAt >= first.validUntil)
        #expect(tookOverAt - first.validUntil < 2_000_000_000)
    }
}

/// `setIfOwner`, the owner's fenced write of its snapshot and rolling round: a write that left
/// an owner while it still held the lease but reaches Redis after another instance took it
/// (queued while the connection was down) is refused and changes nothing.
@Suite struct SetIfOwnerTests {
    @Test func aWriteOfAFormerOwnerIsRefusedAndTheNewOwnersStays() async throws {
        let (server, harness, first) = try await leasedDraw()
        defer { server.stop(); harness.shutdown() }
        let key = RedisDrawKeys(code: first.draw).snapshot
        #expect(try await harness.store.setIfOwner(key, value: Array("token 1".utf8), lease: first).get() == true)
        #expect(await harness.client.command(["GET", key]).value == .bulk(Array("token 1".utf8)))
        // The lease ends (released here rather than waited out, so no timing is involved) and
        // another instance takes it.
        #expect(try await harness.store.releaseLease(first).get() == true)
        guard case .acquired(let second) = try await harness.store.acquireLease(draw: first.draw, owner: "b", ttl: .seconds(10)).get() else {
            Issue.record("the expired lease was not taken")
            return
        }
        #expect(second.token > first.token)
        #expect(try await harness.store.setIfOwner(key, value: Array("token 2".utf8), lease: second).get() == true)
        // The former owner's late write: refused, the new owner's snapshot stays.
        #expect(try await harness.store.setIfOwner(key, value: Array("token 1, late".utf8), lease: first).get() == false)
        #expect(await harness.client.command(["GET", key]).value == .bulk(Array("token 2".utf8)))
    }
}
