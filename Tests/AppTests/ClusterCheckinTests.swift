import Testing
@testable import App
@testable import DrawRoomCore
import JSON
import ClusterCore

/// The pieces of check-in in cluster mode that need no Redis (the rest runs against real
/// instances in Tests/peers/test_cluster_checkin.py): rows as stored, forwarded check-in
/// commands and queries, and the presence codes every instance derives.
@Suite struct ClusterCheckinTests {
    @Test func storedRowsReadBackAsTheSameEntry() throws {
        let entries = [
            CheckinEntry(id: "ABCD2345", seq: 1, name: "Zoë \"x\"", fields: ["ticket": "T-1", "dept": "ops"], device: String(repeating: "a", count: 64),
                         joinedAt: 1_733_000_000_123),
            CheckinEntry(id: "EFGH6789", seq: 7, name: nil, fields: [:], device: nil, joinedAt: 5, removedReason: "erased"),
        ]
        for entry in entries {
            #expect(ClusterStoredRows.entry(row: ClusterStoredRows.row(entry)) == entry)
        }
        #expect(ClusterStoredRows.entry(row: #"{"id":"A","seq":1,"joinedAt":1,"fields":{"k":3}}"#) == nil)
        #expect(ClusterStoredRows.entry(row: "not json") == nil)
    }

    @Test func everyInstanceDerivesTheSamePresenceCodesPerDrawAndKey() {
        let key = Array(repeating: UInt8(7), count: 32)
        let now: Int64 = 1_733_000_000_000
        let a = ClusterDrawNode.presenceCodes(key: key, code: "GALA")
        let b = ClusterDrawNode.presenceCodes(key: key, code: "GALA")
        #expect(a.current(at: now).code == b.current(at: now).code)
        #expect(b.accepts(a.current(at: now).code, at: now + 5_000))
        // Another draw or another key: other codes (over several windows, so a 1-in-10,000 clash cannot pass).
        let windows = (0..<8).map { now + Int64($0) * PresenceCodes.windowMilliseconds }
        let other = ClusterDrawNode.presenceCodes(key: key, code: "GALB")
        let otherKey = ClusterDrawNode.presenceCodes(key: Array(repeating: UInt8(8), count: 32), code: "GALA")
        #expect(windows.map { a.current(at: $0).code } != windows.map { other.current(at: $0).code })
        #expect(windows.map { a.current(at: $0).code } != windows.map { otherKey.current(at: $0).code })
    }
}
