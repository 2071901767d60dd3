import DrawRoomCore
import RedisStore
import Server
import Posix
import Locking

/// Failed key attempts per client address, as token buckets: `burst` tries, then one more
/// every `refill`. Only failures spend a token, so the real host is never locked out for
/// longer than one refill interval. Thread-safe (WebSocket rooms and REST share one).
///
/// In cluster mode (`share`) each spend also goes to a bucket in Redis shared by every
/// instance (`SharedRateLimits`), and its answer, the tokens left cluster-wide, caps the local
/// bucket: the check stays local and instant, and the limit holds for the cluster as a whole
/// (an instance that had not yet heard lets at most one attempt through, repaid as debt).
/// While `maximumUnconfirmed` spends of an address await Redis's answer, the instance decides
/// no further attempt of it: a client faster than Redis cannot outrun the shared count. `attempt`
/// holds such an attempt until the answer is in (milliseconds) instead of refusing it, so a right
/// key sent right after a wrong one is taken; `allows` (the checks that cannot wait) refuses it.
final class AuthRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: UInt64
        /// Spends sent to the cluster's bucket and not answered yet.
        var unconfirmed = 0
        /// Attempts held until a spend is answered (`attempt`), oldest first.
        var held: [Held] = []
    }

    /// An attempt waiting for Redis's answer to an earlier spend of its address.
    private struct Held {
        let check: @Sendable () -> Bool
        let decided: @Sendable (Verdict) -> Void
    }

    /// What became of one key attempt: the key was right, wrong (a token was spent), or not
    /// looked at (the address had no token left).
    typealias Verdict = DrawRoomState.KeyVerdict

    /// Attempts of one address held at once; more are refused as rate limited.
    static let maximumHeld = 32

    let burst: Double
    let refillNanoseconds: Double
    private let buckets = Lock<[String: Bucket]>([:])
    /// Addresses tracked before full buckets are pruned.
    static let pruneThreshold = 10_000
    private let now: @Sendable () -> UInt64
    /// The cluster's buckets and this limiter's name there (`key`, `join:CODE`, …); nil: local only.
    private let shared = Lock<(limits: SharedRateLimits, name: String)?>(nil)
    private let refill: Duration
    /// Cluster mode: attempts per address let through before Redis has answered for them (1 for
    /// the small limits; a hall joining behind one address keeps its pace under the join limit's 1,000).
    let maximumUnconfirmed: Int

    init(burst: Int = 5, refill: Duration = .seconds(2), now: @escaping @Sendable () -> UInt64 = MonotonicClock.nanoseconds) {
        self.burst = Double(burst)
        let (seconds, attoseconds) = refill.components
        refillNanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        self.refill = refill
        self.now = now
        maximumUnconfirmed = max(1, burst / 16)
    }

    /// Spends also from the cluster's bucket `name` for each address (once; later calls change nothing).
    func share(_ limits: SharedRateLimits, as name: String) {
        shared.withLock { if $0 == nil { $0 = (limits, name) } }
    }

    /// Whether `address` may try a key now.
    func allows(_ address: String) -> Bool {
        let time = now()
        return buckets.withLock { buckets in
            guard var bucket = buckets[address] else { return true }
            refill(&bucket, at: time)
            buckets[address] = bucket
            return bucket.tokens >= 1 && bucket.unconfirmed < maximumUnconfirmed
        }
    }

    /// One key attempt of `address`: the limit first, then `check` (the key); a wrong key spends
    /// a token. Decided at once and returned, unless the only thing in the way is this address's
    /// earlier spends awaiting Redis's answer (cluster mode): then nil, and `decided` is called
    /// once the answers are in (the shared limit answers within its 1 s timeout), on Redis's loop.
    func attempt(_ address: String, check: @escaping @Sendable () -> Bool,
                 decided: @escaping @Sendable (Verdict) -> Void) -> Verdict? {
        let time = now()
        let held: Bool = buckets.withLock { buckets in
            guard var bucket = buckets[address] else { return false }
            refill(&bucket, at: time)
            defer { buckets[address] = bucket }
            guard bucket.tokens >= 1, bucket.unconfirmed >= maximumUnconfirmed || !bucket.held.isEmpty,
                  bucket.held.count < Self.maximumHeld else { return false }
            bucket.held.append(Held(check: check, decided: decided))
            return true
        }
        return held ? nil : decide(address, check: check)
    }

    /// The verdict of an attempt that is not held.
    private func decide(_ address: String, check: () -> Bool) -> Verdict {
        guard allows(address) else { return .rateLimited }
        guard check() else {
            recordFailure(address)
            return .refused
        }
        return .accepted
    }

    /// Seconds until `address` may try again (for `Retry-After`), at least 1.
    func retryAfterSeconds(_ address: String) -> Int {
        let time = now()
        return buckets.withLock { buckets in
            guard var bucket = buckets[address] else { return 1 }
            refill(&bucket, at: time)
            let missing = max(0, 1 - bucket.tokens)
            return max(1, Int((missing * refillNanoseconds / 1e9).rounded(.up)))
        }
    }

    /// Spends one token for a failed attempt.
    func recordFailure(_ address: String) {
        let time = now()
        let sharing = shared.withLock { $0 }
        buckets.withLock { buckets in
            var bucket = buckets[address] ?? Bucket(tokens: burst, updated: time)
            refill(&bucket, at: time)
            bucket.tokens = max(0, bucket.tokens - 1)
            if sharing != nil { bucket.unconfirmed += 1 }
            buckets[address] = bucket
            // Full buckets carry no information; drop them so the table stays small. Stored
            // tokens are as of the last attempt, so refill before deciding which are full.
            if buckets.count > Self.pruneThreshold {
                buckets = buckets.filter { entry in
                    var bucket = entry.value
                    refill(&bucket, at: time)
                    return bucket.tokens < burst || bucket.unconfirmed > 0 || !bucket.held.isEmpty
                }
            }
        }
        guard let (limits, name) = sharing else { return }
        limits.spend(name + ":" + address, burst: Int(burst), refill: refill) { [self] left in
            confirmed(address, left: left)
        }
    }

    /// Redis answered a spend of `address`: the cluster's bucket holds `left` tokens (nil: not
    /// asked), and the local one holds no more.
    private func confirmed(_ address: String, left: Double?) {
        let time = now()
        buckets.withLock { buckets in
            var bucket = buckets[address] ?? Bucket(tokens: burst, updated: time)
            refill(&bucket, at: time)
            if let left { bucket.tokens = min(bucket.tokens, left) }
            bucket.unconfirmed = max(0, bucket.unconfirmed - 1)
            buckets[address] = bucket
        }
        releaseHeld(address)
    }

    /// Decides the attempts of `address` held for Redis's answer, oldest first, while nothing
    /// is in the way: a wrong key among them sends a spend, and the rest wait for its answer.
    private func releaseHeld(_ address: String) {
        while true {
            let time = now()
            let next: (Held, rateLimited: Bool)? = buckets.withLock { buckets in
                guard var bucket = buckets[address], !bucket.held.isEmpty else { return nil }
                refill(&bucket, at: time)
                guard bucket.tokens < 1 || bucket.unconfirmed < maximumUnconfirmed else { return nil }
                let held = bucket.held.removeFirst()
                buckets[address] = bucket
                return (held, bucket.tokens < 1)
            }
            guard let (held, rateLimited) = next else { return }
            held.decided(rateLimited ? .rateLimited : decide(address, check: held.check))
        }
    }

    /// Addresses currently tracked (for tests and diagnostics).
    var trackedAddressCount: Int { buckets.withLock { $0.count } }

    private func refill(_ bucket: inout Bucket, at time: UInt64) {
        let elapsed = Double(time &- bucket.updated)
        bucket.tokens = min(burst, bucket.tokens + elapsed / refillNanoseconds)
        bucket.updated = time
    }
}
