import DrawEngine
import Locking

/// Rounds' entry trees for `GET …/rounds/<n>/proof` (EntryProofAPI). After a reveal every
/// checked-in phone asks for its own proof of the same round at once; building a round's tree
/// means reading the whole chain and hashing every entry (about 250 ms for 100,000 entries, on
/// the storage thread every draw shares). So the first request of a round builds it, those that
/// arrive meanwhile wait for that build, and the rest are answered from memory. A round's first
/// draw never changes once stored and a deleted draw's code is never reused, so nothing kept goes
/// stale; memory is bounded: at most `maxRounds` rounds and `maxEntries` entries (the least
/// recently used go first), each for `lifetime` at most, and a deleted draw's are dropped.
final class EntryProofCache: Sendable {
    /// What building a round's tree came to; only trees are kept (a round not drawn yet may be later).
    enum Built: Sendable {
        case round(EntryProof.Round)
        case failed(EntryProof.Failure)
        /// The chain could not be read: the storage error's code.
        case unreadable(String)
    }

    struct Key: Hashable, Sendable {
        var code: String
        var round: Int
    }

    private struct Kept {
        var round: EntryProof.Round
        var builtAt: ContinuousClock.Instant
        var lastUse: UInt64
    }

    private struct State {
        var kept: [Key: Kept] = [:]
        var building: [Key: [@Sendable (Built) -> Void]] = [:]
        var uses: UInt64 = 0
        var entries = 0
    }

    let maxRounds: Int
    let maxEntries: Int
    let lifetime: Duration
    private let state = Lock(State())

    init(maxRounds: Int = 16, maxEntries: Int = 400_000, lifetime: Duration = .seconds(3600)) {
        self.maxRounds = maxRounds
        self.maxEntries = maxEntries
        self.lifetime = lifetime
    }

    /// Round `key`'s tree to `then`: kept, or being built (then `then` waits for that build), or
    /// built now by `build` (which calls back once, from any thread).
    func round(_ key: Key, build: (@escaping @Sendable (Built) -> Void) -> Void, then: @escaping @Sendable (Built) -> Void) {
        let now = ContinuousClock.now
        let found: EntryProof.Round?? = state.withLock { state in
            if let kept = state.kept[key] {
                if now - kept.builtAt < lifetime {
                    state.uses += 1
                    state.kept[key]?.lastUse = state.uses
                    return .some(kept.round)
                }
                state.kept[key] = nil
                state.entries -= kept.round.size
            }
            if state.building[key] != nil {
                state.building[key]?.append(then)
                return .some(nil)
            }
            state.building[key] = [then]
            return nil
        }
        switch found {
        case .some(.some(let round)): return then(.round(round))
        case .some(.none): return  // waits for the build under way
        case .none: break
        }
        build { [self] built in
            let waiting: [@Sendable (Built) -> Void] = state.withLock { state in
                let waiting = state.building.removeValue(forKey: key) ?? []
                if case .round(let round) = built, round.size <= maxEntries {
                    state.uses += 1
                    state.kept[key] = Kept(round: round, builtAt: ContinuousClock.now, lastUse: state.uses)
                    state.entries += round.size
                    while state.kept.count > maxRounds || state.entries > maxEntries,
                          let oldest = state.kept.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                        state.kept[oldest.key] = nil
                        state.entries -= oldest.value.round.size
                    }
                }
                return waiting
            }
            for waiter in waiting { waiter(built) }
        }
    }

    /// Drops a deleted draw's rounds.
    func forget(_ code: String) {
        state.withLock { state in
            for key in state.kept.keys where key.code == code {
                state.entries -= state.kept[key]?.round.size ?? 0
                state.kept[key] = nil
            }
        }
    }

    /// Rounds kept now (tests, metrics).
    var keptRounds: Int { state.withLock { $0.kept.count } }
}
