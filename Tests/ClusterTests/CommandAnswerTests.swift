import Cluster
import Posix
import Testing

/// `ClusterStore.rememberAnswer` / `answers`: the answers to host commands kept in Redis so
/// that a command resent after a takeover gets its original answer.
@Suite struct CommandAnswerTests {
    @Test func keepsTheLastAnswersPerClientWithTheRollingKeyAndExpires() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let keys = DrawKeys(code: lease.draw)
        let answer = #"{"ack":{"command":"start","seq":7,"type":"ack"},"result":null}"#
        #expect(try await harness.store.rememberAnswer(answer, client: "phone\tA", seq: 7, alsoSet: (keys.rolling, Array("hint".utf8)),
                                                       lease: lease, ttl: .seconds(60), keep: 3).get())
        // The answer and the other key were written together.
        #expect(await harness.client.command(["GET", keys.rolling]).value == .bulk(Array("hint".utf8)))
        #expect(try await harness.store.answers(draw: lease.draw, client: "phone\tA").get() == [7: answer])
        #expect(try await harness.store.answers(draw: lease.draw, client: "other").get() == [:])
        let ttl = await harness.client.command(["PTTL", keys.acks]).value?.integer ?? -1
        #expect(ttl > 50_000 && ttl <= 60_000)

        // Only the last `keep` per client.
        for seq in 8...10 {
            _ = try await harness.store.rememberAnswer("{\"n\":\(seq)}", client: "phone\tA", seq: Int64(seq), lease: lease,
                                                       ttl: .seconds(60), keep: 3).get()
        }
        #expect(try await harness.store.answers(draw: lease.draw, client: "phone\tA").get()
            == [8: #"{"n":8}"#, 9: #"{"n":9}"#, 10: #"{"n":10}"#])
    }

    @Test func aStaleOwnerKeepsNothing() async throws {
        let (server, harness, lease) = try await leasedDraw()
        defer { harness.shutdown(); server.stop() }
        let keys = DrawKeys(code: lease.draw)
        #expect(try await harness.store.releaseLease(lease).get())
        guard case .acquired(let newer) = try await harness.store.acquireLease(draw: lease.draw, owner: "b", ttl: .seconds(30)).get() else {
            throw TestFailure("the released lease was not acquired")
        }
        #expect(try await harness.store.rememberAnswer("{}", client: "c", seq: 1, alsoSet: (keys.rolling, Array("stale".utf8)),
                                                       lease: lease, ttl: .seconds(60), keep: 8).get() == false)
        #expect(await harness.client.command(["EXISTS", keys.acks, keys.rolling]).value == .integer(0))
        #expect(try await harness.store.rememberAnswer("{}", client: "c", seq: 1, lease: newer, ttl: .seconds(60), keep: 8).get())
        #expect(try await harness.store.answers(draw: lease.draw, client: "c").get() == [1: "{}"])
    }
}
