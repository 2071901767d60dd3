import Testing
import ClusterCore
import JSON

/// A follower's page with its own check-in part gets the owner's snapshot with that part in place
/// of the public one, every other member unchanged.
@Suite struct OwnCheckinSpliceTests {
    @Test func aPagesOwnPartReplacesThePublicOneAndNothingElse() throws {
        let snapshot = #"{"checkin":{"count":3,"open":true},"code":"ABCD","phase":"idle","rounds":[{"round":1}],"type":"state"}"#
        let splice = try #require(OwnCheckinSplice(snapshot: snapshot))
        let part: JSONValue = .object(["count": .int(3), "me": .object(["id": .string("K7SGJGJP")]), "open": .bool(true)])
        let spliced = try JSONValue.parse(splice.text(with: part))
        #expect(spliced["checkin"] == part)
        guard case .object(var rest) = spliced, case .object(var before) = try JSONValue.parse(snapshot) else { throw Failure() }
        rest["checkin"] = nil
        before["checkin"] = nil
        #expect(rest == before)
    }

    @Test func aSnapshotWithoutACheckinObjectIsNotSpliced() {
        #expect(OwnCheckinSplice(snapshot: #"{"checkin":null,"type":"state"}"#) == nil)
        #expect(OwnCheckinSplice(snapshot: "not json") == nil)
        #expect(OwnCheckinSplice(snapshot: "[]") == nil)
    }

    struct Failure: Error {}
}
