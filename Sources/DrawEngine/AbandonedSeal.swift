/// A sealed round's drand round R given up on the record (a `beaconVoid`: since issue #40 only
/// the host's abandon; before, a fetch that timed out). Its lock fixed everything but R's value,
/// so once R is public anyone computes the winners it would have drawn (docs/FAIRNESS.md §13):
/// withholding R stays possible, but it is exposed.
public struct AbandonedSeal: Sendable, Equatable {
    /// The `beaconVoid` record's index.
    public let index: Int
    public let reason: String
    public let beaconRound: UInt64
    public let chain: BeaconChain
    /// `hash` of the abandoned `beacon` record, and its fields.
    public let lockHash: String
    public let lock: BeaconLock
    /// The pool's entrants and tickets (a list pool), from the export's `entrants` records.
    let entrants: [String]?
    let tickets: [UInt64]?

    /// The winners R's value would have drawn, from its `signature` (randomness = SHA-256 of it;
    /// the caller checks the BLS signature). nil when it is not 48 bytes of lower-case hex.
    public func winners(signature: String) -> [DrawValue]? {
        guard Hex.isLowercase(signature, byteCount: 48), let bytes = Hex.decode(signature) else { return nil }
        return winners(randomness: Hashing.sha256Hex(bytes))
    }

    /// `R:SIGNATURE` (`tombola verify --beacon-value`): a drand round number and 96 lower-case hex digits.
    public static func parseValue(_ text: String) -> (round: UInt64, signature: String)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let round = UInt64(parts[0]), round >= 1, Hex.isLowercase(parts[1], byteCount: 48) else { return nil }
        return (round, parts[1])
    }

    /// The winners R's `randomness` would have drawn (§13 step 4 with this lock); nil when the
    /// randomness or the lock's pool is unusable.
    public func winners(randomness: String) -> [DrawValue]? {
        let r = lock.lock
        guard let key = BeaconSeal.key(lockHash: lockHash, randomness: randomness), let poolHash = Hex.decode(r.poolHash),
              let entropy = Hex.decode(r.entropy), let pool = EligiblePool(spec: r.pool, entrants: entrants),
              UInt64(lock.count) <= pool.count else { return nil }
        let positions: [UInt64]
        if let tickets {
            positions = Fairness.weightedPositions(seed: key, round: r.round, poolHash: poolHash, entropy: entropy,
                                                   weights: pool.eligibleIndices().map { tickets[$0] }, count: lock.count)
        } else {
            positions = Fairness.winnerPositions(seed: key, round: r.round, poolHash: poolHash, entropy: entropy,
                                                 eligible: pool.count, count: lock.count)
        }
        return positions.map(pool.element(at:))
    }
}
