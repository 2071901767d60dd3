import RedisStore
import Testing

/// `RedisOptions.replicaAcks` (cluster mode behind Sentinel): every fenced write is followed by
/// `WAIT` in the same round trip and counts only once a replica has it.
@Suite struct ReplicatedWriteTests {
    static func options() -> RedisOptions {
        var options = RedisOptions.forTests
        options.replicaAcks = 1
        options.replicaTimeout = .seconds(1)  // the default: a loaded machine may take a while to answer GETACK
        return options
    }

    /// A lease on a fresh draw once the replica has caught up (an acquisition WAIT refused
    /// stays in Redis until it expires, so each try takes another draw).
    func leaseOnceReplicated(_ harness: Harness) async throws -> OwnerLease {
        var acquired: OwnerLease?
        #expect(await eventually {
            if case .success(.acquired(let lease)) = await harness.store.acquireLease(draw: uniqueDraw(), owner: "a", ttl: .seconds(30)) {
                acquired = lease
            }
            return acquired != nil
        })
        return try #require(acquired)
    }

    @Test func aWriteNoReplicaConfirmsIsRefusedAndOneAReplicaHasCounts() async throws {
        let primary = try RedisServer(arguments: RedisServer.durableArguments + ["--repl-diskless-sync-delay", "0"])
        try primary.start()
        defer { primary.stop() }
        let harness = try Harness(endpoint: primary.endpoint, options: Self.options())
        defer { harness.shutdown() }
        let draw = uniqueDraw()

        // No replica: the lease is taken on the primary but not confirmed, so not handed out.
        let alone = await harness.store.acquireLease(draw: draw, owner: "a", ttl: .seconds(30))
        #expect(alone.error == .unavailable(.notReplicated(acknowledged: 0, required: 1)))

        let replica = try RedisServer(arguments: RedisServer.durableArguments + ["--replicaof", "127.0.0.1", String(primary.port)])
        try replica.start()
        defer { replica.stop() }
        let reader = try Harness(endpoint: replica.endpoint)
        defer { reader.shutdown() }
        let lease = try await leaseOnceReplicated(harness)
        let other = lease.draw
        let records = chain(2)
        let receipt = try await harness.store.append(records[0], lease: lease).get()
        // Confirmed means it is on the replica when the append answers, not later.
        let onReplica = try await reader.store.readLog(draw: other).get()
        #expect(onReplica.entries.map(\.offset) == [receipt.offset])
        // A retry of a landed append learns so through the same wait.
        #expect(await harness.store.append(records[0], lease: lease).error == .duplicate(offset: receipt.offset))

        // The replica gone: the next record is refused (cluster_unavailable for the host), not announced.
        replica.stop()
        let refused = await harness.store.append(records[1], lease: lease)
        #expect(refused.error == .unavailable(.notReplicated(acknowledged: 0, required: 1)))
        // It is on the primary, but no reader is given it (nor anything) until a replica has it.
        #expect(await harness.store.readLog(draw: other).error == .unavailable(.notReplicated(acknowledged: 0, required: 1)))
    }

    @Test func aScriptResentAfterNoscriptIsStillCoveredByAWait() async throws {
        let primary = try RedisServer(arguments: RedisServer.durableArguments + ["--repl-diskless-sync-delay", "0"])
        try primary.start()
        defer { primary.stop() }
        let replica = try RedisServer(arguments: RedisServer.durableArguments + ["--replicaof", "127.0.0.1", String(primary.port)])
        try replica.start()
        defer { replica.stop() }
        let harness = try Harness(endpoint: primary.endpoint, options: Self.options())
        defer { harness.shutdown() }
        let lease = try await leaseOnceReplicated(harness)
        let draw = lease.draw
        // The scripts' SHA-1s are known; SCRIPT FLUSH makes the next EVALSHA answer NOSCRIPT, so
        // the pipelined WAIT is answered before the EVAL that really writes: a second WAIT follows.
        let records = chain(2)
        let first = try await harness.store.append(records[0], lease: lease).get()  // the SHA-1 is learned
        _ = await harness.client.command(["SCRIPT", "FLUSH"])
        let second = try await harness.store.append(records[1], lease: lease).get()
        let reader = try Harness(endpoint: replica.endpoint)
        defer { reader.shutdown() }
        #expect(try await reader.store.readLog(draw: draw).get().entries.map(\.offset) == [first.offset, second.offset])
    }
}
