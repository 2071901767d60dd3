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
