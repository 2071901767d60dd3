import Synchronization
import Testing
@testable import App
@testable import Server

/// The key rate limiter under many attacking addresses (e.g. an IPv6 host rotating through
/// its /64): its table must not grow without bound.
@Suite struct AbuseRateLimiterTests {
    /// Before the fix, a bucket's stored tokens were those of its last failure, so pruning
    /// (which kept buckets below `burst`) never dropped one: every address that ever failed
    /// stayed in the table, and each further failure filtered the whole table.
    @Test func addressesThatStoppedFailingArePrunedOnceTheirBucketRefilled() {
        let clock = Atomic<UInt64>(1_000_000_000)
        let limiter = AuthRateLimiter(burst: 5, refill: .seconds(2), now: { clock.load(ordering: .relaxed) })
        let attackers = AuthRateLimiter.pruneThreshold + 5_000
        for n in 0..<attackers { limiter.recordFailure("2001:db8::\(String(n, radix: 16))") }
        #expect(limiter.trackedAddressCount > AuthRateLimiter.pruneThreshold)
        // 5 tokens × 2 s later every one of those buckets is full again.
        clock.wrappingAdd(10_000_000_000, ordering: .relaxed)
        limiter.recordFailure("192.0.2.1")
        #expect(limiter.trackedAddressCount == 1, "\(limiter.trackedAddressCount) addresses still tracked")
        // Pruning forgets nothing that matters: a limited address stays limited.
        for _ in 0..<5 { limiter.recordFailure("192.0.2.1") }
        #expect(!limiter.allows("192.0.2.1"))
    }
}
