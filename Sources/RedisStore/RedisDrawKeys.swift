/// The Redis key names of one draw (not `DrawKeys`, the draw codes and host keys in App). All carry the hash tag `{d:CODE}`, so on Redis Cluster they
/// live in one slot and one Lua script may touch them all.
public struct RedisDrawKeys: Sendable, Equatable {
    public let code: String

    public init(code: String) {
        self.code = code
    }

    private var tag: String { "{d:\(code)}" }
    /// `SET NX PX` lease: `"<token>:<owner>"`.
    public var lease: String { "\(tag):lease" }
    /// The fencing counter, incremented on every acquisition.
    public var fence: String { "\(tag):fence" }
    /// The round log (a Stream): fields index, hash, prev, json, token, key.
    public var log: String { "\(tag):log" }
    /// Idempotency keys already appended → their stream offsets.
    public var idempotency: String { "\(tag):idem" }
    /// A random id set when the log gets its first record; a different one means the log was lost and restarted.
    public var epoch: String { "\(tag):epoch" }
    /// The Pub/Sub channel of the draw's fan-out.
    public var channel: String { "\(tag):ch" }
    /// A hash: `config` (the settings as canonical JSON, written with the records that change
    /// them) and `hostKeyHash`.
    public var meta: String { "\(tag):meta" }
    /// A hash of RFC 3161 time-stamps (issue #47, docs/FAIRNESS.md §18): record index →
    /// `"<record hash> <TSA URL> <DER answer in hex>"`, written by the owner once the TSA answered.
    public var timeStamps: String { "\(tag):stamps" }
    /// The owner's latest public snapshot (what a joining page is sent), kept for instances
    /// that start serving the draw between two publications.
    public var snapshot: String { "\(tag):snap" }
    /// While a round rolls: its commitment and the contributions and audience number frozen at
    /// Start (JSON), so that a new owner carries on the same round.
    public var rolling: String { "\(tag):rolling" }
    /// The highest tick `seq` an owner of the draw announced (an integer), written with each
    /// tick's publication, so that a new owner's ticks continue above it.
    public var tickSeq: String { "\(tag):tickseq" }
    /// Counted up by each read of the log behind Sentinel, so the `WAIT` after the read covers
    /// every write the read could see (ClusterStore.readLog).
    public var readMark: String { "\(tag):readmark" }
    /// The Pub/Sub channel the owner listens on: host commands forwarded by other instances,
    /// and their viewer counts.
    public var commands: String { "\(tag):cmd" }

    /// A hash: a host client's id → the answers to its last commands (`seq\tJSON` lines), so
    /// that a command resent after a takeover gets its original answer; expires unless written.
    public var acks: String { "\(tag):acks" }

    /// The draw's winners for other draws' `excludeWinnersOf` (JSON: code, head, records, names,
    /// ids), written by the owner when they change.
    public var winners: String { "\(tag):winners" }

    /// The Pub/Sub channel on which instance `id` hears the answers to what it forwarded.
    public static func replies(instance id: String) -> String { "{i:\(id)}:replies" }
}
