import JSON
import RedisStore
import RoomTestSupport
import Testing
@testable import ClusterCore

/// The fan-out channel's one encoder and decoder (docs/CLUSTER.md, *Fan-out*), and the typed
/// kinds the room gives its broadcasts so that nobody reads a frame's JSON to relay it.
@Suite struct ClusterChannelMessageTests {
    @Test(arguments: [ClusterChannelMessage.Kind.tick, .viewers, .latest, .reliable, .cleared, .checkinWinners])
    func aFrameReadsBackAsItWasSent(kind: ClusterChannelMessage.Kind) {
        let message = ClusterChannelMessage.frame(kind, instance: "a1b2", token: 42, body: "{\"type\":\"x\",\"n\":\"line\\nbreak\"}\nraw")
        #expect(ClusterChannelMessage.decode(message.encoded) == message)
    }

    @Test func aSnapshotReadsBackAndIsStoredWithoutItsKind() {
        let snapshot = ClusterSnapshot(token: 7, seq: 3, epoch: "e0", offset: "1-0", text: "{\"type\":\"state\"}\n")
        for announcesOwner in [false, true] {
            let message = ClusterChannelMessage.snapshot(snapshot, instance: "c3", announcesOwner: announcesOwner)
            #expect(ClusterChannelMessage.decode(message.encoded) == message)
        }
        #expect(ClusterSnapshot.parse(snapshot.stored(by: "c3")[...])?.0 == snapshot)
    }

    @Test(arguments: ["", "T", "T\nonly\n", "X\na\n1\n{}", "T\na\nnot-a-token\n{}", "S\na\n1\n2\nno-space\n{}", "S\na\n1\n{}"])
    func malformedMessagesAreIgnored(text: String) {
        #expect(ClusterChannelMessage.decode(Array(text.utf8)) == nil)
    }

    @Test func aSnapshotIsSummarisedOnceWhenTaken() throws {
        let sealed = try ClusterResumeTests.SealedOwner()
        let text = sealed.room.state.stateText(for: nil)
        let summary = ClusterSnapshotSummary(stateText: text)
        let json = try JSONValue.parse(text)
        #expect(summary.beaconSealed)
        #expect(summary.settingsHash != nil && summary.settingsHash == json["config"]?["hash"]?.stringValue)
        #expect(summary.hasCheckin == (json["checkin"]?.objectValue != nil))
        #expect(summary.phase != nil && summary.phase == json["phase"]?.stringValue)
        #expect(summary.round != nil && summary.round == json["round"]?.intValue)
        let checkin = ClusterSnapshotSummary(stateText: #"{"type":"state","checkin":{"me":null},"config":{"hash":"h1","beacon":false}}"#)
        #expect(checkin == { var s = ClusterSnapshotSummary(); s.settingsHash = "h1"; s.hasCheckin = true; return s }())
        #expect(ClusterSnapshotSummary(stateText: #"{"type":"state","checkin":null}"#) == ClusterSnapshotSummary())
        #expect(ClusterSnapshotSummary(stateText: "not json") == ClusterSnapshotSummary())
        // The state machine reads it once per snapshot it takes, and forgets it with the snapshot.
        var state = ClusterNodeState(settings: .init(code: "ROOM", instanceID: "i2", cluster: ClusterSettings(
            endpoint: RedisEndpoint(host: "127.0.0.1"), key: Array(repeating: 9, count: 32))))
        state.snapshot = ClusterSnapshot(token: 1, seq: 1, epoch: "e", offset: "1-0", text: text)
        #expect(state.snapshotSummary == summary)
        state.snapshot = nil
        #expect(state.snapshotSummary == ClusterSnapshotSummary())
    }

    @Test func theRoomTellsWhatItBroadcasts() throws {
        var room = try RoomHarness()
        room.host()
        let start = room.start().actions
        #expect(start.contains { if case .announce(let a) = $0 { a.kind == .phase(.rolling) } else { false } })
        _ = room.handle(.joined(9, remote: "10.0.0.9"))
        room.advance(.seconds(1))
        let viewers = room.handle(.timerDue(.viewers))
        #expect(viewers.contains { if case .announce(let a) = $0 { a.kind == .viewers && a.isLatestValue } else { false } })
    }
}
