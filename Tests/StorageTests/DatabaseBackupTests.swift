import Foundation
import Testing
@testable import Storage

@Suite struct DatabaseBackupTests {
    @Test func copiesAnOpenDatabaseWhileItIsWrittenAndRestoresIt() throws {
        let dir = TemporaryDirectory()
        let live = try Database(path: dir.path("live.sqlite"))
        try live.insertDraw(draw())
        try live.appendRecord(record(index: 0))
        // An open write transaction on the live connection is not in the copy.
        try live.connection.execute("BEGIN IMMEDIATE")
        try live.appendRecord(record(index: 1))
        let summary = try DatabaseBackup.backup(from: dir.path("live.sqlite"), to: dir.path("copy.sqlite"))
        try live.connection.execute("COMMIT")
        #expect(summary.schemaVersion == Migrations.latest && summary.draws == 1 && summary.records == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.path("copy.sqlite-wal")))
        #expect(!FileManager.default.fileExists(atPath: dir.path("copy.sqlite.partial")))

        let restored = try DatabaseBackup.restore(from: dir.path("copy.sqlite"), to: dir.path("restored.sqlite"))
        #expect(restored == summary)
        let reopened = try Database(path: dir.path("restored.sqlite"))
        #expect(try reopened.loadDraws() == [draw()])
        #expect(try reopened.loadRecords(drawCode: "ABC234") == [record(index: 0)])
        #expect(reopened.integrityCheck())
    }

    @Test func neverOverwritesAnExistingFile() throws {
        let dir = TemporaryDirectory()
        _ = try Database(path: dir.path("live.sqlite"))
        try Data("precious".utf8).write(to: URL(fileURLWithPath: dir.path("copy.sqlite")))
        #expect(storageError { _ = try DatabaseBackup.backup(from: dir.path("live.sqlite"), to: dir.path("copy.sqlite")) } == .alreadyExists)
        #expect(try String(contentsOfFile: dir.path("copy.sqlite"), encoding: .utf8) == "precious")
    }

    @Test func refusesAMissingSourceAndANewerSchemaAndLeavesNoFile() throws {
        let dir = TemporaryDirectory()
        #expect(storageError { _ = try DatabaseBackup.backup(from: dir.path("none.sqlite"), to: dir.path("c.sqlite")) } == .cannotOpen)
        do {
            let db = try Database(path: dir.path("future.sqlite"))
            try db.connection.execute("PRAGMA user_version = \(Migrations.latest + 1)")
        }
        #expect(storageError { _ = try DatabaseBackup.restore(from: dir.path("future.sqlite"), to: dir.path("r.sqlite")) } == .schemaTooNew)
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: dir.path("junk.sqlite")))
        #expect(storageError { _ = try DatabaseBackup.restore(from: dir.path("junk.sqlite"), to: dir.path("r.sqlite")) } != nil)
        #expect(!FileManager.default.fileExists(atPath: dir.path("c.sqlite")))
        #expect(!FileManager.default.fileExists(atPath: dir.path("r.sqlite")))
    }
}
