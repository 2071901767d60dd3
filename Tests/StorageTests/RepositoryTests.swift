import Glibc
import Testing
@testable import Storage

@Suite struct DrawRepositoryTests {
    @Test func insertsUpdatesAndLoadsDraws() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(draw("B", createdAt: 2))
        try db.insertDraw(draw("A", createdAt: 1))
        try db.updateConfig(code: "B", configJSON: #"{"to":9}"#)
        try db.setClearedThrough(code: "A", index: 4)
        var a = draw("A", createdAt: 1)
        a.clearedThrough = 4
        var b = draw("B", createdAt: 2)
        b.configJSON = #"{"to":9}"#
        #expect(try db.loadDraws() == [a, b])
        #expect(try db.loadDraw(code: "B") == b)
        #expect(try db.loadDraw(code: "C") == nil)
    }

    @Test func refusesADuplicateCode() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(draw())
        #expect(storageError { try db.insertDraw(draw()) } == .alreadyExists)
    }

    @Test func reportsUpdatesOfUnknownDraws() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        #expect(storageError { try db.updateConfig(code: "X", configJSON: "{}") } == .notFound)
        #expect(storageError { try db.setClearedThrough(code: "X", index: 1) } == .notFound)
    }
}

@Suite struct RecordRepositoryTests {
    @Test func appendsAndLoadsAChainInOrder() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(draw("A"))
        try db.insertDraw(draw("B"))
        for i in 0..<5 {
            try db.appendRecord(record("A", index: i, kind: i == 3 ? "void" : "round"))
        }
        try db.appendRecord(record("B", index: 0))
        #expect(try db.loadRecords(drawCode: "A") == (0..<5).map { record("A", index: $0, kind: $0 == 3 ? "void" : "round") })
        #expect(try db.loadRecords(drawCode: "B") == [record("B", index: 0)])
        #expect(try db.loadRecords(drawCode: "C").isEmpty)
    }

    static func forged(_ label: String) -> RecordRow {
        switch label {
        case "skipped index": return record(index: 3)
        case "repeated index":
            var r = record(index: 1)
            r.prevHash = fakeHash("ABC234", 1)
            return r
        case "rewritten index": return record(index: 1, json: #"{"rerolled":true}"#)
        case "wrong prevHash":
            var r = record(index: 2)
            r.prevHash = fakeHash("ABC234", 0)
            return r
        default:
            var r = record(index: 2)
            r.prevHash = ""
            return r
        }
    }

    @Test(arguments: ["skipped index", "repeated index", "rewritten index", "wrong prevHash", "empty prevHash"])
    func refusesRecordsThatDoNotExtendTheChain(label: String) throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(draw())
        try db.appendRecord(record(index: 0))
        try db.appendRecord(record(index: 1))
        #expect(storageError { try db.appendRecord(Self.forged(label)) } == .chainConflict)
        #expect(try db.loadRecords(drawCode: "ABC234") == [record(index: 0), record(index: 1)])
    }

    @Test func requiresTheGenesisHashForTheFirstRecord() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(draw())
        var first = record(index: 0)
        first.prevHash = "abc"
        #expect(storageError { try db.appendRecord(first) } == .chainConflict)
        #expect(storageError { try db.appendRecord(record(index: 1)) } == .chainConflict)
        try db.appendRecord(record(index: 0))
    }

    @Test func refusesRecordsOfUnknownDraws() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        #expect(storageError { try db.appendRecord(record("NOPE", index: 0)) } == .notFound)
    }

    @Test func enforcesUniqueIndexesAndAppendOnlyInTheSchema() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(draw())
        try db.appendRecord(record(index: 0))
        // Bypassing the repository still cannot fork or rewrite the chain.
        let insert = """
            INSERT INTO records (draw_code, idx, round, kind, json, hash, prev_hash, created_at)
            VALUES ('ABC234', 0, 1, 'round', '{}', 'x', 'y', 0)
            """
        #expect(storageError { try db.connection.execute(insert) } == .alreadyExists)
        #expect(storageError { try db.connection.execute("UPDATE records SET json = '{}'") } == .constraint)
        #expect(storageError { try db.connection.execute("DELETE FROM records") } == .constraint)
        try db.appendAudit(audit(index: 0))
        #expect(storageError { try db.connection.execute("DELETE FROM audit") } == .constraint)
        #expect(storageError { try db.connection.execute("UPDATE audit SET actor = 'admin'") } == .constraint)
        #expect(try db.loadRecords(drawCode: "ABC234") == [record(index: 0)])
    }
}

@Suite struct AuditRepositoryTests {
    @Test func appendsAndLoadsChainsPerDraw() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        for i in 0..<3 { try db.appendAudit(audit("A", index: i)) }
        try db.appendAudit(audit("", index: 0, actor: "admin"))
        try db.appendAudit(audit("", index: 1, actor: "system"))
        #expect(try db.loadAudit(drawCode: "A") == (0..<3).map { audit("A", index: $0) })
        #expect(try db.loadAudit(drawCode: "").map(\.actor) == ["admin", "system"])
    }

    @Test func latestAuditIsTheNewestEntryOfTheGivenActionsOfThatDraw() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        let actions = ["start", "configure", "stop", "checkin"]
        for (i, action) in actions.enumerated() {
            var row = audit("A", index: i)
            row.action = action
            try db.appendAudit(row)
        }
        try db.appendAudit(audit("B", index: 0))
        #expect(try db.latestAudit(drawCode: "A", among: ["start", "stop"])?.index == 2)
        #expect(try db.latestAudit(drawCode: "A", among: ["start"])?.index == 0)
        #expect(try db.latestAudit(drawCode: "A", among: ["clear"]) == nil)
        #expect(try db.latestAudit(drawCode: "A", among: []) == nil)
        #expect(try db.latestAudit(drawCode: "C", among: ["start"]) == nil)
    }

    @Test func refusesBrokenLinksAndUnknownActors() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.appendAudit(audit(index: 0))
        #expect(storageError { try db.appendAudit(audit(index: 0)) } == .chainConflict)
        #expect(storageError { try db.appendAudit(audit(index: 2)) } == .chainConflict)
        var forged = audit(index: 1)
        forged.prevHash = "forged"
        #expect(storageError { try db.appendAudit(forged) } == .chainConflict)
        #expect(storageError { try db.appendAudit(audit(index: 1, actor: "viewer")) } == .constraint)
        #expect(try db.loadAudit(drawCode: "ABC234") == [audit(index: 0)])
    }
}

/// The sealed seed of a pending commitment and what a Start froze (issue #40): one row per draw,
/// replaced by the next commitment; the key file made once beside the database, mode 0600.
@Suite struct PendingSeedRepositoryTests {
    @Test func aNewCommitmentReplacesTheRowAndRollingStaysWithItsOwnCommitment() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(draw("MAIN", createdAt: 0))
        #expect(try db.pendingSeed(drawCode: "MAIN") == nil)
        try db.savePendingSeed(drawCode: "MAIN", commitment: "c1", sealed: "s1")
        #expect(try db.savePendingRolling(drawCode: "MAIN", commitment: "other", rolling: "r") == false)
        #expect(try db.savePendingRolling(drawCode: "MAIN", commitment: "c1", rolling: "r1"))
        #expect(try db.pendingSeed(drawCode: "MAIN") == PendingSeedRow(commitment: "c1", sealed: "s1", rolling: "r1"))
        try db.savePendingSeed(drawCode: "MAIN", commitment: "c2", sealed: "s2")
        #expect(try db.pendingSeed(drawCode: "MAIN") == PendingSeedRow(commitment: "c2", sealed: "s2", rolling: nil))
    }

    @Test func theSeedKeyIsMadeOnceBesideTheDatabaseReadableByItsOwnerOnly() throws {
        let dir = TemporaryDirectory()
        let key = try Database(path: dir.path("t.sqlite")).seedKey()
        #expect(key.count == 32)
        #expect(try Database(path: dir.path("t.sqlite")).seedKey() == key)
        var info = stat()
        #expect(stat(dir.path("seed.key"), &info) == 0 && info.st_mode & 0o777 == 0o600)
    }
}
