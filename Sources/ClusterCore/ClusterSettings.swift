import DrawEngine
import RedisStore

/// Cluster mode's settings (`--redis`, `--cluster-key`, `--allow-unsafe-redis`). The key is
/// never printed: `description` leaves it out.
public struct ClusterSettings: Sendable, CustomStringConvertible {
    public var endpoint: RedisEndpoint
    /// 32 bytes shared by every instance: seals each commitment's seed in the round log.
    public var key: [UInt8]
    public var allowUnsafeRedis = false
    /// The program writing the records, named by each `commit` record (issue #47); nil: none.
    public var software: SoftwareIdentity?
    /// How long a lease lasts unless renewed; a dead owner is replaced within about this.
    public var leaseTTL: Duration = .seconds(2)
    public var renewInterval: Duration = .milliseconds(500)
    /// How often an instance that does not own a draw tries to take its lease.
    public var pollInterval: Duration = .milliseconds(250)
    /// The owner stops acting this long before its lease could have expired in Redis.
    public var safetyMargin: Duration = .milliseconds(150)
    /// How long a forwarded host command waits for the owner's answer.
    public var forwardTimeout: Duration = .seconds(10)
    /// What a forwarded Stop of a beacon-sealed draw waits on top of `forwardTimeout`: the longest
    /// wait for its drand round (`BeaconSettings.longestWait`).
    public var sealedStopWait: Duration = .zero
    /// How long the answers to a draw's host commands are kept in Redis after the last one
    /// (a command resent after a takeover gets its original answer), and how many per client.
    public var answerTTL: Duration = .seconds(6 * 3600)
    public var answersKept = 64
    /// Behind Sentinel (`--redis-sentinel`, `--redis-master`): `endpoint` is then only the first
    /// Sentinel's address (for logs); every connection follows the primary the Sentinels name,
    /// and each write of the round log, lease, answers and check-in waits for a replica.
    public var sentinel: SentinelSettings?
    /// Replicas that must have each such write before it is announced (`WAIT`): 1 behind
    /// Sentinel, 0 on a single Redis.
    public var replicaAcks: Int { sentinel == nil ? 0 : 1 }
    /// How long a write may wait for its replica before it is refused (`cluster_unavailable`).
    public var replicaTimeout: Duration = .seconds(1)

    public init(endpoint: RedisEndpoint, key: [UInt8], allowUnsafeRedis: Bool = false) {
        self.endpoint = endpoint
        self.key = key
        self.allowUnsafeRedis = allowUnsafeRedis
    }

    public var description: String { "cluster on \(sentinel?.description ?? "\(endpoint)") (key not shown)" }

    /// Where the instance's Redis is, for logs and errors.
    package var redisDescription: String { sentinel?.description ?? "\(endpoint)" }
}
