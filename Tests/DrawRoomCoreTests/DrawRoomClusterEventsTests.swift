import JSON
import DrawEngine
import RoomTestSupport
import Testing
@testable import DrawRoomCore

/// The state machine's cluster events (docs/CLUSTER.md): other instances' viewer counts and
/// entropy, a new owner carrying a rolling round on, and the seed handed to the store.
@Suite struct DrawRoomClusterEventsTests {
    @Test func viewersOnOtherInstancesAreAddedToTheCount() throws {
        var room = try RoomHarness()
        _ = room.handle(.joined(1, remote: "10.0.0.1"))
        _ = room.handle(.remoteViewers(41))
        room.advance(.seconds(1))
        let announced = room.handle(.timerDue(.viewers)).compactMap(\.broadcastJSON)
        #expect(announced.contains { $0["type"]?.stringValue == "viewers" && $0["count"]?.intValue == 42 })
        let state = try JSONValue.parse(room.state.stateText(for: nil))
        #expect(state["viewers"]?.intValue == 42)
        _ = room.handle(.remoteViewers(-5))  // nonsense counts as nothing
        #expect(try JSONValue.parse(room.state.stateText(for: nil))["viewers"]?.intValue == 1)
    }

    @Test func entropyFromOtherInstancesIsFrozenAtStartAndWithdrawnWhenItsPageLeaves() throws {
        var room = try RoomHarness()
        room.host()
        let kept = String(repeating: "ab", count: 16)
        let withdrawn = String(repeating: "cd", count: 16)
        _ = room.handle(.remoteEntropy("i1/7", Contribution(hex: kept)))
        _ = room.handle(.remoteEntropy("i2/9", Contribution(hex: withdrawn)))
        _ = room.handle(.remoteEntropy("i2/9", nil))
        _ = room.start()
        #expect(room.state.draw.frozenContributions.map(\.hex) == [kept])
    }

    @Test func aRestoredRollingRoundTicksAgainAndTheStoreGetsTheNextSeed() throws {
        let room = try RoomHarness()
        var draw = room.state.draw
        try draw.start(contributions: [], audience: "12", at: 2_000)
        var carried = DrawRoomState(code: "ROOM", draw: draw, settings: room.state.settings)
        var random = SeededGenerator(seed: 1)
        let actions = carried.handle(.resumeRolling, at: room.time, using: &random)
        #expect(actions.compactMap(\.broadcastJSON).map { $0["type"]?.stringValue } == ["phase", "tick"])
        #expect(actions.contains { $0.scheduledAt?.timer == .motion })
        #expect(carried.handle(.resumeRolling, at: room.time, using: &random).isEmpty)  // once

        // Stop's batch carries the seed of the commitment it publishes (sealed by a cluster store).
        let stop = carried.handle(.command(.stop, seq: nil, client: nil, awaitReveal: false, caller: 1), at: room.time, using: &random)
        guard case .store(let batch)? = stop.first(where: \.isStore) else {
            Issue.record("stop stored nothing")
            return
        }
        guard case .commit(let commitment, _)? = batch.records.last?.body else {
            Issue.record("stop's batch does not end with a commit")
            return
        }
        #expect(batch.committedSeed?.commitment == commitment)
        #expect(batch.records.contains { if case .round(let round) = $0.body { round.audience == "12" } else { false } })
    }
}
