/// The checks of a `lock` record against its round (docs/FAIRNESS.md §7, step 7; export format
/// v2). The script of §12 and the pages' recheck give the same reasons.
enum LockCheck {
    struct Tier: Equatable {
        let index: Int?
        let name: String?
    }

    static let lockWithoutRound = "lock without its round"
    /// What may follow a `lock` (stored at Start): its round, a beacon-sealed round's records (§13)
    /// before it, or, when a restart cut the roll short, the restart's `commit` (the lock is
    /// abandoned with its commitment) or a new Start's `lock` of the same round and commitment.
    static let mayFollowLock: Set<String> = ["round", "beacon", "beaconValue", "beaconVoid", "commit", "lock"]
    static func abandonedNote(_ lock: LockRecord) -> String {
        "WARNING: lock of round \(lock.round) abandoned: its roll was cut short before Stop and not resumed (the sealed seed was lost, or a server before issue #40)"
    }
    static let lockCommitment = "lock names no pending commitment"
    static let roundWithoutLock = "round without its lock"
    static let lockMismatch = "lock does not match its round"
    static let entries = "lock entrantsHash or root"
    static let hostExcluded = "lock host exclusions"
    static let unexplained = "removed holds a position no rule explains"
    static let missingHost = "removed misses a host exclusion (rule 1)"
    static let plan = "k differs from min(perStop, left in prize, n)"
    static let prizeLeft = "prizeLeft differs from the prize's count less its winners"
    static let unlockedNote = "no lock record (export format v1): the pool's lock time, host exclusions, k and entry proofs "
        + "are not provable (FAIRNESS.md §11)"

    /// `root`: the entry tree root of the round's list (nil for a range). `awarded`: the current
    /// winners of the round's prize tier before it (nil for a replacement).
    static func check(_ lock: LockRecord, round r: RoundRecord, n: UInt64, root: String?, expectedRemoved: Set<Int64>,
                      awarded: Int?) throws(RecordError) {
        func require(_ condition: Bool, _ reason: String) throws(RecordError) {
            if !condition { throw RecordError(reason: reason) }
        }
        try require(lock.round == r.round && lock.poolHash == r.poolHash && lock.commitment == r.commitment, lockMismatch)
        let host = lock.hostExcluded
        let removed: [Int64]
        switch r.pool {
        case .range(let from, let to, let values):
            try require(lock.entrantsHash == nil && lock.root == nil, entries)
            try require(host.allSatisfy { $0 >= from && $0 <= to }, hostExcluded)
            removed = values
        case .list(let count, let hash, let indices, _, _):
            try require(lock.entrantsHash == hash && lock.root != nil && lock.root == root, entries)
            try require(host.allSatisfy { $0 >= 0 && $0 < count }, hostExcluded)
            removed = indices
        }
        try require(zip(host, host.dropFirst()).allSatisfy { $0 < $1 }, hostExcluded)
        let gone = Set(removed)
        try require(host.allSatisfy(gone.contains), missingHost)
        try require(gone == expectedRemoved, unexplained)
        let plan = lock.plan
        let k = r.winners.count
        guard let awarded else {
            try require(plan == .replacement, plan_)
            return
        }
        try require((plan.prizeCount == nil) == (r.prizeIndex == nil) && (plan.prizeLeft == nil) == (r.prizeIndex == nil), prizeLeft)
        if let count = plan.prizeCount {
            try require(count >= 1 && plan.prizeLeft == count - awarded, prizeLeft)
        }
        // A reverse raffle's round draws out at most all but one (docs/FAIRNESS.md §21, rule V1).
        var expected = r.reverse ? UInt64(n) - 1 : UInt64(n)
        if let perStop = plan.perStop { expected = min(expected, UInt64(max(perStop, 0))) }
        if let left = plan.prizeLeft { expected = min(expected, UInt64(max(left, 0))) }
        try require(plan.count == k && UInt64(k) == expected && (plan.perStop.map { $0 >= 1 } ?? true), plan_)
    }

    private static let plan_ = plan
}
