@testable import DrawRoomCore
import DrawEngine
import JSON
import RoomTestSupport
import Testing

/// The room's check-in pipeline driven with a manual clock: batching, ordering against host
/// writes, the throttled count, and failed writes that store nothing.
@Suite struct CheckinRoomStateTests {
    func openRoom() throws -> RoomHarness {
        var room = try RoomHarness(config: DrawConfig(pool: .checkin([])))
        let open = room.command(.checkin(.open(nil)))
        #expect(open.actions.contains { if case .store(let batch) = $0, case .settings? = batch.checkin { true } else { false } })
        _ = room.handle(.stored(.success(())))
        return room
    }

    func join(_ room: inout RoomHarness, _ n: Int, caller: UInt64) -> [DrawRoomState.Action] {
        let form = CheckinForm(name: "Person \(n)", fields: [])
        return room.handle(.checkinJoin(CheckinJoin(form: form, device: "device-\(n)", code: nil), caller: caller))
    }

    func storedEntrants(_ actions: [DrawRoomState.Action]) -> [EntrantInsert]? {
        for case .storeEntrants(let batch) in actions {
            if case .join(let inserts)? = batch.checkin { return inserts }
        }
        return nil
    }

    func replies(_ actions: [DrawRoomState.Action]) -> [UInt64: Result<CommandReply, CommandFailure>] {
        var out = [UInt64: Result<CommandReply, CommandFailure>]()
        for case .reply(let caller, let outcome) in actions { out[caller] = outcome }
        return out
    }

    @Test func joinsArrivingDuringAWriteAreStoredTogetherInTheNextOne() throws {
        var room = try openRoom()
        #expect(storedEntrants(join(&room, 1, caller: 1001))?.count == 1)
        for n in 2...50 { #expect(storedEntrants(join(&room, n, caller: UInt64(1000 + n))) == nil) }
        let afterFirst = room.handle(.entrantsStored(.success(())))
        #expect(replies(afterFirst)[1001] != nil)
        #expect(storedEntrants(afterFirst)?.count == 49)
        let afterSecond = room.handle(.entrantsStored(.success(())))
        #expect(replies(afterSecond).count == 49)
        #expect(room.state.checkin.book.activeCount == 50)
        #expect(Set(room.state.checkin.book.activeIDs).count == 50)
    }

    @Test func aFailedWriteStoresNothingAndTheSameDeviceCanTryAgain() throws {
        var room = try openRoom()
        _ = join(&room, 1, caller: 1)
        #expect(join(&room, 1, caller: 2).contains { if case .reply(2, .failure(let f)) = $0 { f.code == "already_joined" } else { false } })
        let failed = room.handle(.entrantsStored(.failure(.init(code: "storage_failed", detail: "test"))))
        #expect(replies(failed)[1].map { if case .failure(let f) = $0 { f.code } else { "ok" } } == "storage_failed")
        #expect(room.state.checkin.book.activeCount == 0)
        #expect(storedEntrants(join(&room, 1, caller: 3))?.count == 1)
    }

    @Test func aHostCommandWaitsForTheJoinWriteAndClosingRefusesTheJoinsStillWaiting() throws {
        var room = try openRoom()
        _ = join(&room, 1, caller: 5001)
        let close = room.command(.checkin(.close))
        #expect(!close.actions.contains { if case .store = $0 { true } else { false } })
        _ = join(&room, 2, caller: 5002)
        // The join batch lands, then the close runs before the waiting join is written.
        let landed = room.handle(.entrantsStored(.success(())))
        #expect(landed.contains { if case .store(let batch) = $0 { batch.command == "entries_close" } else { false } })
        #expect(storedEntrants(landed) == nil)
        let closed = room.handle(.stored(.success(())))
        #expect(replies(closed)[5002].map { if case .failure(let f) = $0 { f.code } else { "ok" } } == "entries_closed")
        #expect(room.state.draw.config.pool == .checkin(room.state.checkin.book.activeIDs))
        #expect(room.state.draw.remaining == 1)
    }

    @Test func closingALargeCheckinLocksItsPoolOffTheLoopWhileAJoinWaits() throws {
        var room = try openRoom()
        let count = ConfigurePlan.offloadEntries + 1
        for n in 1...count { _ = join(&room, n, caller: UInt64(10_000 + n)) }
        while room.state.checkin.writing { _ = room.handle(.entrantsStored(.success(()))) }
        #expect(room.state.checkin.book.activeCount == count)
        room.runsConfigurePlans = false
        let close = room.command(.checkin(.close))
        let plan = try #require(close.actions.compactMap { if case .prepareConfigure(let plan) = $0 { plan } else { nil } }.first)
        #expect(plan.runsOffLoop && room.state.isBusy)
        #expect(!close.actions.contains { if case .store = $0 { true } else { false } })
        // A phone joining meanwhile waits (nothing is stored); the close lands first and refuses it.
        #expect(storedEntrants(join(&room, count + 1, caller: 99)) == nil)
        let prepared = room.handle(.configurePrepared(plan.run()))
        let batch = try #require(prepared.compactMap { if case .store(let batch) = $0 { batch } else { nil } }.first)
        #expect(batch.command == "entries_close" && batch.config?.contains("\"checkin\"") == true)
        let closed = room.handle(.stored(.success(())))
        #expect(replies(closed)[close.caller] != nil)
        #expect(replies(closed)[99].map { if case .failure(let f) = $0 { f.code } else { "ok" } } == "entries_closed")
        #expect(room.state.draw.config.pool == .checkin(room.state.checkin.book.activeIDs))
        #expect(room.state.draw.remaining == UInt64(count))
        #expect(room.state.configText == DrawRoomState.publicConfigText(room.state.draw.config))
        #expect(!room.state.isBusy)
    }

    @Test(arguments: [false, true]) func ticksNameTheEntrantOnlyWhenTheHostMadeNamesPublic(publicNames: Bool) throws {
        var room = try RoomHarness(config: DrawConfig(pool: .checkin([])))
        var settings = CheckinSettings()
        settings.publicNames = publicNames
        _ = room.command(.checkin(.open(settings)))
        _ = room.handle(.stored(.success(())))
        for n in 1...3 {
            _ = join(&room, n, caller: UInt64(100 + n))
            _ = room.handle(.entrantsStored(.success(())))
        }
        _ = room.command(.checkin(.close))
        _ = room.handle(.stored(.success(())))
        room.host()
        let start = room.start()
        let tick = try #require(start.actions.compactMap(\.broadcastJSON).first { $0["type"]?.stringValue == "tick" })
        let id = try #require(tick["value"]?.stringValue)
        let name = try #require(room.state.checkin.book.entry(id: id)?.name)
        #expect(name.hasPrefix("Person "))
        #expect(tick["name"] == (publicNames ? .string(name) : nil))
    }

    @Test func startIsRefusedWhileEntriesAreOpen() throws {
        var room = try openRoom()
        room.host()
        let start = room.start()
        #expect(replies(start.actions)[start.caller].map { if case .failure(let f) = $0 { f.code } else { "ok" } } == "entries_open")
        #expect(room.state.draw.phase == .idle)
    }

    @Test func theEntrantCountIsBroadcastAtMostOnceASecond() throws {
        var room = try openRoom()
        var broadcasts = 0
        var due: ContinuousClock.Instant?
        func count(_ actions: [DrawRoomState.Action]) {
            for action in actions {
                if case .announce(.entrants) = action { broadcasts += 1 }
                if case .schedule(.entrants, let at) = action { due = at }
            }
        }
        for n in 1...20 {
            _ = join(&room, n, caller: UInt64(5000 + n))
            count(room.handle(.entrantsStored(.success(()))))
            room.advance(.milliseconds(100))
            // The shell fires a timer only when it is due.
            if let at = due, room.time.instant >= at {
                due = nil
                count(room.handle(.timerDue(.entrants)))
            }
        }
        // 2 s of joins: the timer was armed once a second, so at most 2–3 counts went out, not 20.
        #expect(broadcasts >= 1 && broadcasts <= 3)
    }
}
