import DrawEngine
import JSON
import RoomTestSupport
import Testing
@testable import DrawRoomCore

/// Beacon-sealed rounds in the room's state machine (docs/PROTOCOL.md, "Beacon-sealed rounds"):
/// Stop stores lock + beacon and keeps rolling, asks the shell to fetch R, a failure voids the seal
/// (still rolling). Cluster mode runs the same room (ClusterCoreTests: a new owner fetches the same R).
@Suite struct DrawRoomBeaconTests {
    static func config() -> DrawConfig {
        var config = DrawConfig.standard
        config.beacon = true
        return config
    }

    static func reply(_ actions: [DrawRoomState.Action]) -> Result<CommandReply, CommandFailure>? {
        for action in actions { if case .reply(_, let outcome) = action { return outcome } }
        return nil
    }

    static func storedKinds(_ actions: [DrawRoomState.Action]) -> [String]? {
        for action in actions { if case .store(let batch) = action { return batch.records.map(\.kind) } }
        return nil
    }

    static func beaconMessages(_ actions: [DrawRoomState.Action]) -> [JSONValue] {
        actions.compactMap(\.broadcastJSON).filter { $0["type"]?.stringValue == "beacon" }
    }

    @Test func stopSealsKeepsRollingAndAVoidLeavesTheRoundRolling() throws {
        var room = try RoomHarness(config: Self.config())
        room.state = DrawRoomState(code: "ROOM", draw: room.state.draw,
                                   settings: DrawRoomSettings(tickHz: 20, slowDown: .milliseconds(300), beacon: BeaconSettings()))
        #expect(Self.storedKinds(room.command(.start(audience: nil)).actions) == ["lock"], "Start stores the round's lock")
        _ = room.handle(.stored(.success(())))
        var (_, actions) = room.command(.stop)
        #expect(Self.storedKinds(actions) == ["beacon"])
        actions = room.handle(.stored(.success(())))
        #expect(room.state.draw.phase == .rolling)
        let waiting = try #require(Self.beaconMessages(actions).first)
        #expect(waiting["status"]?.stringValue == "waiting" && waiting["round"]?.intValue == 1)
        let request = try #require(actions.compactMap { action -> BeaconRequest? in
            if case .fetchBeacon(let request) = action { return request }
            return nil
        }.first)
        #expect(request.beaconRound == UInt64(waiting["beaconRound"]!.intValue!) && request.relays == BeaconChain.defaultRelays)
        #expect(request.deadlineMillis == request.dueMillis + 10_000)
        // A second Stop while waiting is out of turn.
        #expect(Self.reply(room.command(.stop).actions) == .failure(CommandFailure(code: "wrong_phase")))

        actions = room.handle(.beaconFetched(request, .failed("0 of 2 relays needed answered")))
        #expect(Self.storedKinds(actions) == ["beaconVoid"])
        actions = room.handle(.stored(.success(())))
        let void = try #require(Self.beaconMessages(actions).first)
        #expect(void["status"]?.stringValue == "void" && void["reason"]?.stringValue == "0 of 2 relays needed answered")
        #expect(room.state.draw.phase == .rolling && room.state.draw.sealing == nil)
        let state = try JSONValue.parse(room.state.stateText(for: nil))
        #expect(state["beacon"]?["status"]?.stringValue == "void")
        // An answer for the voided lock is dropped.
        #expect(Self.storedKinds(room.handle(.beaconFetched(request, .failed("late")))) == nil)
        // Stop again seals a new drand round under the same lock.
        #expect(Self.storedKinds(room.command(.stop).actions) == ["beacon"])
    }
}
