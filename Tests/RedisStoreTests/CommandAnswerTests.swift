import RedisStore
import Posix
import Testing

/// The answers to host commands kept in Redis (`ClusterStore.rememberAnswer`, and with a
/// command's records in `appendBatch`), so that a command resent after a takeover gets its
/// original answer.
@Suite struct CommandAnswerTests {
    static func answer(_ client: String, _ seq: Int64, _ text: String, keep: Int = 64) -> KeptAnswer {
        KeptAnswer(client: client, seq: seq, text: text, ttl: .seconds(60), keep: keep)
    }

    @Test func keepsTheLastAnswersPerClientWithTheRollingKeyAndExpires() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let keys = RedisDrawKeys(code: lease.draw)
        let text = #"{"ack":{"command":"start","seq":7,"type":"ack"},"result":null}"#
        #expect(try await harness.store.rememberAnswer(Self.answer("phone\tA", 7, text, keep: 3),
                                                       alsoSet: (keys.rolling, Array("hint".utf8)), lease: lease).get())
        // The answer and the other key were written together.
        #expect(await harness.client.command(["GET", keys.rolling]).value == .bulk(Array("hint".utf8)))
        #expect(try await harness.store.answers(draw: lease.draw, client: "phone\tA").get() == [7: text])
        #expect(try await harness.store.answers(draw: lease.draw, client: "other").get() == [:])
        let ttl = await harness.client.command(["PTTL", keys.acks]).value?.integer ?? -1
        #expect(ttl > 50_000 && ttl <= 60_000)

        // Only the last `keep` per client.
        for seq in Int64(8)...10 {
            _ = try await harness.store.rememberAnswer(Self.answer("phone\tA", seq, "{\"n\":\(seq)}", keep: 3), lease: lease).get()
        }
        #expect(try await harness.store.answers(draw: lease.draw, client: "phone\tA").get()
            == [8: #"{"n":8}"#, 9: #"{"n":9}"#, 10: #"{"n":10}"#])
    }

    @Test func aStaleOwnerKeepsNothing() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let keys = RedisDrawKeys(code: lease.draw)
        #expect(try await harness.store.releaseLease(lease).get())
        guard case .acquired(let newer) = try await harness.store.acquireLease(draw: lease.draw, owner: "b", ttl: .seconds(30)).get() else {
            throw TestFailure("the released lease was not acquired")
        }
        #expect(try await harness.store.rememberAnswer(Self.answer("c", 1, "{}"), alsoSet: (keys.rolling, Array("stale".utf8)),
                                                       lease: lease).get() == false)
        #expect(await harness.client.command(["EXISTS", keys.acks, keys.rolling]).value == .integer(0))
        #expect(try await harness.store.rememberAnswer(Self.answer("c", 1, "{}"), lease: newer).get())
        #expect(try await harness.store.answers(draw: lease.draw, client: "c").get() == [1: "{}"])
    }

    @Test func aBatchKeepsItsAnswerWithItsRecordsOrNeither() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        var broken = chain(2)
        broken[1].prev = "not-the-hash-before"
        #expect(await harness.store.appendBatch(broken, config: nil, idempotencyKey: "b-0", lease: lease,
                                                answer: Self.answer("host", 5, "{}")).error == .chainMismatch(lastHash: LogRecord.genesisPrev))
        #expect(try await harness.store.answers(draw: lease.draw, client: "host").get() == [:])

        _ = try await harness.store.appendBatch(chain(2), config: "{}", idempotencyKey: "b-0", lease: lease,
                                                answer: Self.answer("host", 5, #"{"ack":1}"#)).get()
        #expect(try await harness.store.answers(draw: lease.draw, client: "host").get() == [5: #"{"ack":1}"#])
        #expect(try await harness.store.readLog(draw: lease.draw).get().entries.count == 2)
        // Without an answer the batch is as before.
        _ = try await harness.store.appendBatch(chain(1, startingAt: 2, after: "hash-r-1"), config: nil, idempotencyKey: "b-2",
                                                lease: lease).get()
        #expect(try await harness.store.answers(draw: lease.draw, client: "host").get() == [5: #"{"ack":1}"#])
    }

    @Test func aTickRaisesTheHighestSeqOnlyForTheCurrentOwner() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let keys = RedisDrawKeys(code: lease.draw)
        #expect(try await harness.store.publishTick(seq: 41, payload: Array("T\na\n1\n{}".utf8), lease: lease).get())
        #expect(try await harness.store.publishTick(seq: 7, payload: Array("T\na\n1\n{}".utf8), lease: lease).get())
        #expect(await harness.client.command(["GET", keys.tickSeq]).value == .bulk(Array("41".utf8)))  // never lowered

        #expect(try await harness.store.releaseLease(lease).get())
        guard case .acquired(let newer) = try await harness.store.acquireLease(draw: lease.draw, owner: "b", ttl: .seconds(30)).get() else {
            throw TestFailure("the released lease was not acquired")
        }
        #expect(try await harness.store.publishTick(seq: 90, payload: Array("T\na\n1\n{}".utf8), lease: lease).get() == false)
        #expect(await harness.client.command(["GET", keys.tickSeq]).value == .bulk(Array("41".utf8)))  // a stale owner's is refused
        #expect(try await harness.store.publishTick(seq: 42, payload: Array("T\nb\n2\n{}".utf8), lease: newer).get())
        #expect(await harness.client.command(["GET", keys.tickSeq]).value == .bulk(Array("42".utf8)))
    }
}
