/// The Redis keys of one draw. All carry the hash tag `{d:CODE}`, so on Redis Cluster they
/// live in one slot and one Lua script may touch them all.
public struct DrawKeys: Sendable, Equatable {
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
}
