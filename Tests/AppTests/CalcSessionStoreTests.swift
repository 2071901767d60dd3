import Locking
import Synchronization
import Testing
@testable import App
@testable import Server

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let current = Lock(ContinuousClock.now)
    var now: ContinuousClock.Instant { current.withLock { $0 } }
    func advance(by duration: Duration) { current.withLock { $0 += duration } }
}

@Suite struct CalcSessionStoreTests {
    let clock = ManualClock()

    func makeStore(ttl: Duration = .seconds(600), capacity: Int = 100) -> CalcSessionStore {
        let clock = self.clock
        return CalcSessionStore(ttl: ttl, capacity: capacity, now: { clock.now })
    }

    static func owner(_ id: UInt64, moved: @escaping @Sendable (String) -> Void = { _ in }) -> CalcSessionStore.Owner {
        CalcSessionStore.Owner(id: id, moved: moved)
    }

    /// Applies one key so the session is worth keeping.
    static func touch(_ session: CalcSession) {
        _ = session.press(CalculatorKeyWire.key(for: "7")!, seq: 1)
    }

    @Test func keepsAReleasedSessionForItsTimeToLiveAndNoLonger() {
        let store = makeStore(ttl: .seconds(600))
        let session = store.open(owner: Self.owner(1))
        Self.touch(session)
        #expect(store.release(session, ownerID: 1), "the first kept session asks for a sweep")
        clock.advance(by: .seconds(599))
        #expect(store.sweep())
        let fresh = store.open(owner: Self.owner(2))
        #expect(store.resume(id: session.id, owner: Self.owner(2), releasing: fresh) === session)
        store.release(session, ownerID: 2)
        clock.advance(by: .seconds(600))
        #expect(!store.sweep())
        #expect(store.count == 0)
        let other = store.open(owner: Self.owner(3))
        #expect(store.resume(id: session.id, owner: Self.owner(3), releasing: other) == nil)
    }

    @Test func dropsAnUntouchedSessionAsSoonAsItsSocketCloses() {
        let store = makeStore()
        let session = store.open(owner: Self.owner(1))
        #expect(store.heldCount == 1)
        #expect(!store.release(session, ownerID: 1))
        #expect(store.count == 0)
        #expect(store.heldCount == 0)
    }

    @Test func resumingReleasesTheFreshSessionAndTellsAPreviousHolder() {
        let store = makeStore()
        let moved = Atomic<Int>(0)
        let movedIDs = Lock<[String]>([])
        let first = store.open(owner: Self.owner(1, moved: { id in
            moved.add(1, ordering: .relaxed)
            movedIDs.withLock { $0.append(id) }
        }))
        Self.touch(first)
        let second = store.open(owner: Self.owner(2))
        #expect(store.resume(id: first.id, owner: Self.owner(2), releasing: second) === first)
        #expect(movedIDs.withLock { $0 } == [first.id])
        #expect(store.count == 1, "the untouched fresh session is gone")
        #expect(store.heldCount == 1)
        // The old holder's close no longer releases what it lost.
        #expect(!store.release(first, ownerID: 1))
        #expect(store.heldCount == 1)
        // Resuming one's own session changes nothing.
        #expect(store.resume(id: first.id, owner: Self.owner(2), releasing: first) === first)
        #expect(moved.load(ordering: .relaxed) == 1)
    }

    @Test func aTouchedFreshSessionIsKeptWhenItsSocketResumesAnother() {
        let store = makeStore()
        let old = store.open(owner: Self.owner(1))
        Self.touch(old)
        store.release(old, ownerID: 1)
        let fresh = store.open(owner: Self.owner(2))
        Self.touch(fresh)
        #expect(store.resume(id: old.id, owner: Self.owner(2), releasing: fresh) === old)
        let third = store.open(owner: Self.owner(3))
        #expect(store.resume(id: fresh.id, owner: Self.owner(3), releasing: third) === fresh)
    }

    @Test func atCapacityTheLongestKeptSessionIsDroppedFirst() {
        let store = makeStore(capacity: 3)
        var kept: [CalcSession] = []
        for owner in UInt64(1)...3 {
            let session = store.open(owner: Self.owner(owner))
            Self.touch(session)
            store.release(session, ownerID: owner)
            kept.append(session)
            clock.advance(by: .seconds(1))
        }
        let newcomer = store.open(owner: Self.owner(10))
        #expect(store.count == 3)
        #expect(store.resume(id: kept[0].id, owner: Self.owner(10), releasing: newcomer) == nil)
        #expect(store.resume(id: kept[1].id, owner: Self.owner(10), releasing: newcomer) === kept[1])
    }

    @Test func heldSessionsAreNeverEvicted() {
        let store = makeStore(capacity: 2)
        let sessions = (UInt64(1)...4).map { store.open(owner: Self.owner($0)) }
        #expect(store.count == 4)
        #expect(store.heldCount == 4)
        #expect(Set(sessions.map(\.id)).count == 4)
    }

    @Test func reKeepingASessionRestartsItsClock() {
        let store = makeStore(ttl: .seconds(10))
        let session = store.open(owner: Self.owner(1))
        Self.touch(session)
        store.release(session, ownerID: 1)
        clock.advance(by: .seconds(8))
        let fresh = store.open(owner: Self.owner(2))
        _ = store.resume(id: session.id, owner: Self.owner(2), releasing: fresh)
        store.release(session, ownerID: 2)
        clock.advance(by: .seconds(8))
        #expect(store.sweep(), "16 s after the first release but 8 s after the second: still kept")
        #expect(store.count == 1)
        clock.advance(by: .seconds(2))
        #expect(!store.sweep())
        #expect(store.count == 0)
    }

    @Test func aFloodOfReleasesStaysWithinCapacity() {
        let store = makeStore(capacity: 50)
        for owner in UInt64(1)...2_000 {
            let session = store.open(owner: Self.owner(owner))
            Self.touch(session)
            store.release(session, ownerID: owner)
        }
        #expect(store.count == 50)
    }

    @Test func sessionIdsAre128RandomBitsInHex() {
        let ids = (0..<200).map { _ in CalcSession.makeID() }
        #expect(Set(ids).count == 200)
        #expect(ids.allSatisfy(CalcSession.isWellFormedID))
        #expect(!CalcSession.isWellFormedID("0123456789ABCDEF0123456789abcdef"))
    }
}
