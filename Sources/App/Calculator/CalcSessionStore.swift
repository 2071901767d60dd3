import Server
import Locking

/// Every calculator session of one server: the ones a socket holds and the ones kept for
/// `ttl` after their socket closed, so a page that reconnects can `resume` them. At most
/// `capacity` sessions are stored; past that the longest-kept one is dropped first.
///
/// Lock order: the store's mutex may be held while a session's is taken, never the reverse.
final class CalcSessionStore: Sendable {
    /// The socket holding a session. `moved` runs with the session's id (on any thread,
    /// outside the store's lock) when another socket resumes that session.
    struct Owner: Sendable {
        let id: UInt64
        let moved: @Sendable (String) -> Void
    }

    let ttl: Duration
    let capacity: Int
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Lock(State())

    private struct Entry: Sendable {
        let session: CalcSession
        var owner: Owner?
        var keptSince: ContinuousClock.Instant?
        /// Changes whenever the session is kept anew, so older queue items are known stale.
        var generation: UInt64 = 0
    }

    private struct Kept: Sendable {
        let id: String
        let generation: UInt64
        let since: ContinuousClock.Instant
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        /// Kept sessions in the order they were kept (oldest first) from `head`; items whose
        /// generation no longer matches their entry are stale and skipped.
        var kept: [Kept] = []
        var head = 0
        var nextGeneration: UInt64 = 1
        var held = 0
        var sweepScheduled = false
    }

    /// The default `capacity`. A stored session costs up to about 31 KB (measured: 50 history
    /// entries with 200-character expressions and their values, plus a full pending line), so
    /// 5,000 sessions stay near 155 MB; sessions holding huge exact values cost more.
    static let defaultCapacity = 5_000

    init(ttl: Duration = .seconds(600), capacity: Int = CalcSessionStore.defaultCapacity,
         now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.ttl = ttl
        self.capacity = capacity
        self.now = now
    }

    /// Sessions held by a socket.
    var heldCount: Int { state.withLock { $0.held } }
    /// Sessions stored: held ones plus kept ones.
    var count: Int { state.withLock { $0.entries.count } }

    /// A new session held by `owner`.
    func open(owner: Owner) -> CalcSession {
        let now = now()
        return state.withLock { state in
            expire(&state, now: now)
            while state.entries.count >= capacity, let oldest = popOldestKept(&state) {
                state.entries[oldest] = nil
            }
            var id = CalcSession.makeID()
            while state.entries[id] != nil { id = CalcSession.makeID() }
            let session = CalcSession(id: id)
            state.entries[id] = Entry(session: session, owner: owner)
            state.held += 1
            return session
        }
    }

    /// Moves session `id` to `owner`, which gives up `current`. Nil (and nothing changes)
    /// when no such session is stored. A socket still holding it is told through `moved`.
    func resume(id: String, owner: Owner, releasing current: CalcSession) -> CalcSession? {
        guard CalcSession.isWellFormedID(id) else { return nil }
        let now = now()
        let outcome = state.withLock { state -> (CalcSession, Owner?)? in
            expire(&state, now: now)
            guard var entry = state.entries[id] else { return nil }
            if entry.session === current { return (current, nil) }
            let previous = entry.owner
            if previous == nil { state.held += 1 }
            entry.owner = owner
            entry.keptSince = nil
            entry.generation = 0
            state.entries[id] = entry
            release(current, ownerID: owner.id, in: &state, now: now)
            return (entry.session, previous)
        }
        guard let (session, previous) = outcome else { return nil }
        previous?.moved(id)
        return session
    }

    /// `ownerID`'s socket closed: keep its session for `ttl` (dropped at once when nothing was
    /// ever applied to it). Returns true when the caller must schedule `sweep` (none is pending).
    @discardableResult
    func release(_ session: CalcSession, ownerID: UInt64) -> Bool {
        let now = now()
        return state.withLock { state in
            release(session, ownerID: ownerID, in: &state, now: now)
            return claimSweep(&state)
        }
    }

    /// Whether the caller must now schedule `sweep`: sessions are kept and no sweep is pending.
    func claimSweep() -> Bool {
        state.withLock { claimSweep(&$0) }
    }

    private func claimSweep(_ state: inout State) -> Bool {
        guard !state.sweepScheduled, state.head < state.kept.count else { return false }
        state.sweepScheduled = true
        return true
    }

    /// Drops sessions kept longer than `ttl`. Returns whether any are still kept; when not,
    /// the next `release` asks for a new sweep.
    func sweep() -> Bool {
        let now = now()
        return state.withLock { state in
            expire(&state, now: now)
            compact(&state)
            let more = state.head < state.kept.count
            if !more { state.sweepScheduled = false }
            return more
        }
    }

    private func release(_ session: CalcSession, ownerID: UInt64, in state: inout State, now: ContinuousClock.Instant) {
        guard var entry = state.entries[session.id], entry.session === session, entry.owner?.id == ownerID else { return }
        state.held -= 1
        guard session.isTouched else {
            state.entries[session.id] = nil
            return
        }
        entry.owner = nil
        entry.keptSince = now
        entry.generation = state.nextGeneration
        state.nextGeneration += 1
        state.entries[session.id] = entry
        state.kept.append(Kept(id: session.id, generation: entry.generation, since: now))
    }

    private func isCurrent(_ item: Kept, in state: State) -> Bool {
        guard let entry = state.entries[item.id] else { return false }
        return entry.owner == nil && entry.generation == item.generation
    }

    private func expire(_ state: inout State, now: ContinuousClock.Instant) {
        while state.head < state.kept.count {
            let item = state.kept[state.head]
            if isCurrent(item, in: state) {
                guard now - item.since >= ttl else { break }
                state.entries[item.id] = nil
            }
            state.head += 1
        }
        compact(&state)
    }

    private func popOldestKept(_ state: inout State) -> String? {
        while state.head < state.kept.count {
            let item = state.kept[state.head]
            state.head += 1
            if isCurrent(item, in: state) { return item.id }
        }
        return nil
    }

    /// Keeps the queue's dead prefix and stale items from growing without bound.
    private func compact(_ state: inout State) {
        if state.head == state.kept.count {
            state.kept.removeAll(keepingCapacity: state.kept.count < 4096)
            state.head = 0
        } else if state.head > 1024 && state.head * 2 > state.kept.count {
            state.kept.removeFirst(state.head)
            state.head = 0
        }
        let live = state.kept.count - state.head
        if live > 1024 && live > 2 * state.entries.count {
            let current = state.kept[state.head...].filter { isCurrent($0, in: state) }
            state.kept = current
            state.head = 0
        }
    }
}
