import Testing
@testable import Storage

@Suite struct DrawAdminRepositoryTests {
    @Test func drawsArePagedNewestFirstWithRoundsAndLastActivity() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        for (offset, code) in ["AAA222", "BBB333", "CCC444"].enumerated() {
            try db.insertDraw(draw(code, createdAt: 1_700_000_000 + Double(offset)))
        }
        try db.appendRecord(record("AAA222", index: 0, kind: "commit"))
        try db.appendRecord(record("AAA222", index: 1, kind: "round"))
        let first = try db.listDraws(limit: 2, after: nil)
        #expect(first.map(\.code) == ["CCC444", "BBB333"])
        let second = try db.listDraws(limit: 2, after: "BBB333")
        #expect(second.map(\.code) == ["AAA222"])
        #expect(second[0].rounds == 1 && second[0].lastActivity == 1_700_000_001 && second[0].title == nil)
        #expect(storageError { _ = try db.listDraws(limit: 2, after: "NOSUCH") } == .notFound)
    }

    @Test func recordsStayAppendOnlyUntilTheDrawIsDeletedAndTheTombstoneStays() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(draw("AAA222"))
        try db.appendRecord(record("AAA222", index: 0))
        try db.appendAudit(audit("AAA222", index: 0))
        #expect(storageError { try db.connection.execute("DELETE FROM records WHERE draw_code = 'AAA222'") } != nil)
        try db.setArchived(code: "AAA222", at: 5)
        #expect(try db.loadDrawMarks().archived == ["AAA222"])
        try db.storageTransaction { () throws(StorageError) in try db.deleteDraw(code: "AAA222", at: 6) }
        #expect(try db.loadDrawMarks().deleted == ["AAA222"])
        #expect(try db.loadDraw(code: "AAA222") == nil && db.loadDrawIndex().isEmpty && db.listDraws(limit: 5, after: nil).isEmpty)
        #expect(try db.statement("SELECT COUNT(*) FROM records").query([]) { $0.int(0) } == [0])
        #expect(try db.statement("SELECT COUNT(*) FROM audit").query([]) { $0.int(0) } == [1])
        // The tombstone keeps the code taken, and a deleted draw cannot be deleted or archived again.
        #expect(storageError { try db.insertDraw(draw("AAA222")) } != nil)
        #expect(storageError { try db.deleteDraw(code: "AAA222", at: 7) } == .notFound)
        #expect(storageError { try db.setArchived(code: "AAA222", at: 7) } == .notFound)
    }
}
