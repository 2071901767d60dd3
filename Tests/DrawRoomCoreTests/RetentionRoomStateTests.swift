@testable import DrawRoomCore
import DrawEngine
import JSON
import RoomTestSupport
import Testing

/// The retention sweep's erase (`CheckinCommand.expire`) in the room: the same write as the
/// host's *Erase entrants*, audited as `retention_erase` by `system` with the days, and carried
/// out on an archived draw, where the host's erase is refused.
@Suite struct RetentionRoomStateTests {
    func closedRoomWithEntrants() throws -> RoomHarness {
        var room = try RoomHarness(config: DrawConfig(pool: .checkin([])))
        _ = room.command(.checkin(.open(nil)))
        _ = room.handle(.stored(.success(())))
        for n in 1...3 {
            _ = room.handle(.checkinJoin(CheckinJoin(form: CheckinForm(name: "Person \(n)", fields: []), device: "d\(n)", code: nil),
                                         caller: UInt64(100 + n)))
            _ = room.handle(.entrantsStored(.success(())))
        }
        _ = room.command(.checkin(.close))
        _ = room.handle(.stored(.success(())))
        return room
    }

    func storedBatch(_ actions: [DrawRoomState.Action]) -> RecordBatch? {
        for case .store(let batch) in actions { return batch }
        return nil
    }

    @Test func anArchivedDrawIsErasedBySystemAndRefusesTheHostsErase() throws {
        var room = try closedRoomWithEntrants()
        #expect(room.state.checkin.book.activeCount == 3)
        _ = room.handle(.archivedChanged(true))
        let refused = room.command(.checkin(.erase))
        #expect(refused.actions.reply(to: refused.caller).map { if case .failure(let f) = $0 { f.code } else { "ok" } } == "draw_archived")

        let expire = room.command(.checkin(.expire(days: 30)))
        let batch = try #require(storedBatch(expire.actions))
        #expect(batch.command == "retention_erase")
        #expect(batch.audit?.actor == "system")
        #expect(batch.audit?.detail["days"]?.intValue == 30)
        #expect(batch.audit?.detail["entrants"]?.intValue == 3)
        #expect(batch.audit?.detail["operator"] == nil)
        guard case .erase? = batch.checkin else { Issue.record("not the erase write"); return }
        _ = room.handle(.stored(.success(())))
        #expect(room.state.checkin.book.activeCount == 0)
        #expect(room.state.checkin.book.entries.allSatisfy { $0.name == nil })
    }

    @Test func entrantsKeptAfterTheHostSwitchedToAListAreErasedAndTheListStays() throws {
        var room = try closedRoomWithEntrants()
        _ = room.command(.configure(DrawConfig(pool: .list(["Ann", "Bo"]))))
        _ = room.handle(.stored(.success(())))
        #expect(room.state.checkin.book.entries.contains { $0.name != nil })
        #expect(room.command(.checkin(.erase)).actions.contains { if case .reply(_, .failure(let f)) = $0 { f.code == "not_checkin" } else { false } })
        let expire = room.command(.checkin(.expire(days: 7)))
        let batch = try #require(storedBatch(expire.actions))
        #expect(batch.command == "retention_erase" && batch.config == nil)
        _ = room.handle(.stored(.success(())))
        #expect(room.state.checkin.book.entries.allSatisfy { $0.name == nil })
        #expect(room.state.draw.config.pool == .list(["Ann", "Bo"]))
    }

    /// Cluster mode sweeps nowhere (`sweepsRetention` false): setting retention is refused, nothing stored.
    @Test func aServerThatDoesNotSweepRefusesTheSetting() throws {
        var room = try RoomHarness()
        var settings = room.state.settings
        settings.sweepsRetention = false
        room.state = DrawRoomState(code: "ROOM", draw: room.state.draw, settings: settings)
        room.host()
        var config = DrawConfig(pool: .checkin([]))
        config.retentionDays = 30
        let refused = room.command(.configure(config))
        #expect(refused.actions.reply(to: refused.caller) == .failure(CommandFailure(code: "not_supported")))
        #expect(!refused.actions.storesSomething && room.state.draw.config.retentionDays == nil && !room.state.isBusy)
        config.retentionDays = nil
        #expect(room.command(.configure(config)).actions.storesSomething)
    }

    @Test func theCommandCrossesToAClusterOwnerIntact() throws {
        let json = HostCommand.checkin(.expire(days: 12)).forwardedJSON
        guard case .checkin(.expire(let days)) = try HostCommand(forwarded: json) else { Issue.record("\(json)"); return }
        #expect(days == 12)
    }
}
