@testable import RedisStore
import Testing

/// `RedisPrimaryLocator`'s reading of the Sentinels' answers: which primary a Sentinel names,
/// when it does not count (it sees that primary down), and which of several answers wins (the
/// newest configuration). With real Sentinels: Tests/peers/test_cluster_sentinel.py.
@Suite struct SentinelAnswerTests {
    static func answers(address: (String, String)?, master: [String: String]) -> [RedisReply] {
        let named: RedisReply = address.map { .array([.bulk(Array($0.0.utf8)), .bulk(Array($0.1.utf8))]) } ?? .null
        let fields = master.sorted { $0.key < $1.key }.flatMap { [RedisReply.bulk(Array($0.key.utf8)), .bulk(Array($0.value.utf8))] }
        return [named, .array(fields)]
    }

    @Test func aPrimaryTheSentinelSeesUpIsNamedWithItsEpoch() throws {
        let replies = Self.answers(address: ("127.0.0.1", "7001"),
                                   master: ["ip": "127.0.0.1", "port": "7001", "flags": "master", "config-epoch": "12"])
        let found = try #require(RedisPrimaryLocator.usablePrimary(replies))
        #expect(found.endpoint == RedisEndpoint(host: "127.0.0.1", port: 7001))
        #expect(found.epoch == 12)
    }

    @Test func aPrimaryTheSentinelSeesDownDoesNotCount() {
        for flags in ["master,s_down", "master,s_down,o_down"] {
            let replies = Self.answers(address: ("127.0.0.1", "7001"),
                                       master: ["ip": "127.0.0.1", "port": "7001", "flags": flags, "config-epoch": "12"])
            #expect(RedisPrimaryLocator.usablePrimary(replies) == nil, "\(flags)")
        }
    }

    @Test func duringAFailoverThePromotedReplicaCountsThoughTheOldPrimaryIsDown() throws {
        // get-master-addr-by-name already names the promoted replica; SENTINEL MASTER still
        // describes the old primary, flagged down.
        let replies = Self.answers(address: ("127.0.0.1", "7002"),
                                   master: ["ip": "127.0.0.1", "port": "7001", "config-epoch": "13",
                                            "flags": "master,s_down,o_down,failover_in_progress"])
        #expect(try #require(RedisPrimaryLocator.usablePrimary(replies)).endpoint.port == 7002)
    }

    @Test func noAddressOrABrokenOneIsNoAnswer() {
        #expect(RedisPrimaryLocator.usablePrimary(Self.answers(address: nil, master: [:])) == nil)
        #expect(RedisPrimaryLocator.usablePrimary(Self.answers(address: ("127.0.0.1", "x"), master: [:])) == nil)
        #expect(RedisPrimaryLocator.usablePrimary([.error("ERR No such master with that name")]) == nil)
    }

    @Test func theNewestConfigurationWinsOverALaggingSentinel() throws {
        let old = RedisEndpoint(host: "127.0.0.1", port: 7001)
        let new = RedisEndpoint(host: "127.0.0.1", port: 7002)
        let answers = [RedisPrimaryLocator.Named(sentinel: 0, endpoint: old, epoch: 20),
                       RedisPrimaryLocator.Named(sentinel: 1, endpoint: new, epoch: 21),
                       RedisPrimaryLocator.Named(sentinel: 2, endpoint: old, epoch: 20)]
        // The lagging Sentinel is preferred (it answered last) and in the majority: still the newest wins.
        #expect(try #require(RedisPrimaryLocator.newest(answers, preferred: 0, count: 3)).endpoint == new)
        #expect(RedisPrimaryLocator.newest([], preferred: 0, count: 3) == nil)
    }

    @Test func onATieThePreferredSentinelOrTheNextOneAfterItWins() throws {
        let answers = (0..<3).map { RedisPrimaryLocator.Named(sentinel: $0, endpoint: RedisEndpoint(host: "127.0.0.1", port: 7000 + $0), epoch: 5) }
        for preferred in 0..<3 {
            #expect(try #require(RedisPrimaryLocator.newest(answers, preferred: preferred, count: 3)).sentinel == preferred)
        }
        let withoutFirst = Array(answers.dropFirst())
        #expect(try #require(RedisPrimaryLocator.newest(withoutFirst, preferred: 0, count: 3)).sentinel == 1)
        #expect(try #require(RedisPrimaryLocator.newest(withoutFirst, preferred: 2, count: 3)).sentinel == 2)
    }
}
