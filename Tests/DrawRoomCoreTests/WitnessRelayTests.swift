import JSON
import RoomTestSupport
import Testing
@testable import DrawRoomCore

/// Witness reports (docs/PROTOCOL.md, "Witness reports"): checked, bounded, one a connection
/// every 10 s, relayed with a count to the host pages only; a host who authenticates later
/// gets the latest. Driven with a manual clock.
@Suite struct WitnessRelayTests {
    static let hash = String(repeating: "ab", count: 32)
    static let report = #"{"type":"witness","reason":"rewritten","heads":[{"index":4,"hash":"\#(hash)"}]}"#

    @Test(arguments: [
        #"{"type":"witness","reason":"maybe","heads":[{"index":4,"hash":"\#(hash)"}]}"#,
        #"{"type":"witness","reason":"fork","heads":[]}"#,
        #"{"type":"witness","reason":"fork"}"#,
        #"{"type":"witness","reason":"fork","heads":[{"index":-1,"hash":"\#(hash)"}]}"#,
        #"{"type":"witness","reason":"fork","heads":[{"index":4,"hash":"\#(hash.uppercased())"}]}"#,
        #"{"type":"witness","reason":"fork","heads":[{"index":4,"hash":"abc"}]}"#,
        #"{"type":"witness","reason":"fork","heads":[{"index":1},{"index":2},{"index":3}]}"#,
        #"{"type":"witness","reason":"fork","heads":[{"index":4,"hash":"\#(hash)"}],"pad":"\#(String(repeating: "x", count: 600))"}"#,
    ])
    func aMalformedReportIsRefusedAndRelaysNothing(text: String) throws {
        var room = try RoomHarness()
        room.host(1)
        _ = room.handle(.joined(2, remote: "10.0.0.2"))
        let actions = room.handle(.received(text, from: 2))
        let sent = actions.compactMap(\.sent)
        #expect(sent.count == 1 && sent[0].to == 2 && sent[0].text.contains("bad_witness"))
        #expect(room.state.witnesses.count == 0)
    }

    @Test func aReportReachesTheHostsWithACountOnceEveryTenSeconds() throws {
        var room = try RoomHarness()
        room.host(1)
        _ = room.handle(.joined(2, remote: "10.0.0.2"))
        _ = room.handle(.joined(3, remote: "10.0.0.3"))
        let first = room.handle(.received(Self.report, from: 2)).compactMap(\.sent)
        #expect(first.map(\.to) == [1])
        let relayed = try JSONValue.parse(first[0].text)
        #expect(relayed["type"]?.stringValue == "witness" && relayed["count"]?.intValue == 1)
        #expect(relayed["reason"]?.stringValue == "rewritten")
        #expect(relayed["heads"]?.arrayValue?.first?["hash"]?.stringValue == Self.hash)
        // The same page again within 10 s: dropped. Another page: counted.
        room.advance(.seconds(9))
        #expect(room.handle(.received(Self.report, from: 2)).isEmpty)
        #expect(try JSONValue.parse(room.handle(.received(Self.report, from: 3)).compactMap(\.sent)[0].text)["count"]?.intValue == 2)
        // After 10 s the first page is relayed again, not counted twice.
        room.advance(.seconds(2))
        #expect(try JSONValue.parse(room.handle(.received(Self.report, from: 2)).compactMap(\.sent)[0].text)["count"]?.intValue == 2)
        // A host authenticating later gets the latest relay with its role.
        let late = room.handle(.joined(4, remote: "10.0.0.4")) + room.handle(.keyChecked(4, .accepted))
        #expect(late.compactMap(\.sent).contains { $0.to == 4 && $0.text.contains("\"count\":2") })
    }
}
