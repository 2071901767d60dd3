import Foundation
import Testing
@testable import Storage

@Suite struct DatabaseTests {
    @Test func migratesAnEmptyFileToTheLatestSchema() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        #expect(try db.schemaVersion() == Migrations.latest)
        #expect(Migrations.latest >= 1)
        let tables = try db.statement("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").query([]) { $0.text(0) }
        #expect(tables == ["audit", "branding", "checkin", "draws", "entrant_values", "entrants", "operators", "pending_seeds", "prize_media", "records", "server_keys", "timestamps", "webhooks"])
    }

    @Test func reopensWithoutMigratingAgainAndKeepsData() throws {
        let dir = TemporaryDirectory()
        do {
            let db = try Database(path: dir.path("t.sqlite"))
            try db.insertDraw(draw())
            try db.appendRecord(record(index: 0))
        }
        let db = try Database(path: dir.path("t.sqlite"))
        #expect(try db.schemaVersion() == Migrations.latest)
        #expect(try db.loadDraws() == [draw()])
        #expect(try db.loadRecords(drawCode: "ABC234") == [record(index: 0)])
    }

    @Test func refusesASchemaFromTheFuture() throws {
        let dir = TemporaryDirectory()
        do {
            let db = try Database(path: dir.path("t.sqlite"))
            try db.connection.execute("PRAGMA user_version = \(Migrations.latest + 1)")
        }
        #expect(storageError { _ = try Database(path: dir.path("t.sqlite")) } == .schemaTooNew)
    }

    @Test func runsInWALModeWithFullSyncAndForeignKeys() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        #expect(try db.journalMode() == "wal")
        #expect(try db.integer("PRAGMA synchronous") == 2)
        #expect(try db.integer("PRAGMA foreign_keys") == 1)
        try db.insertDraw(draw())
        #expect(FileManager.default.fileExists(atPath: dir.path("t.sqlite-wal")))
    }

    @Test func passesTheIntegrityCheck() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(draw())
        #expect(db.integrityCheck())
    }

    @Test func reportsAFileThatIsNotADatabaseAsCorrupt() throws {
        let dir = TemporaryDirectory()
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: dir.path("bad.sqlite")))
        #expect(storageError { _ = try Database(path: dir.path("bad.sqlite")) } == .corrupt)
    }

    @Test func reportsAnUnopenablePath() {
        let dir = TemporaryDirectory()
        #expect(storageError { _ = try Database(path: dir.path("missing/dir/t.sqlite")) } == .cannotOpen)
    }

    @Test func mapsAFullDatabaseToDiskFull() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(draw())
        // Cap the file at its current size so the next large write hits SQLITE_FULL.
        let pages = try db.integer("PRAGMA page_count")
        _ = try db.integer("PRAGMA max_page_count = \(pages)")
        let big = String(repeating: "x", count: 200_000)
        let error = #expect(throws: StorageError.self) { try db.appendRecord(record(index: 0, json: big)) }
        #expect(error?.code == .diskFull)
        #expect(error?.detail.contains("xxx") == false)
        // The failed transaction left nothing behind and the database stays usable.
        #expect(try db.loadRecords(drawCode: "ABC234").isEmpty)
        try db.appendRecord(record(index: 0))
        #expect(db.integrityCheck())
    }

    @Test func rollsBackATransactionThatThrows() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        let code = storageError {
            try db.transaction {
                try db.insertDraw(draw("A"))
                throw StorageError(.notFound)
            }
        }
        #expect(code == .notFound)
        #expect(try db.loadDraws().isEmpty)
    }
}

@Suite struct TransactionTests {
    @Test func groupsRepositoryCallsInOneTransaction() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.transaction {
            try db.insertDraw(draw())
            try db.appendRecord(record(index: 0))
            try db.appendAudit(audit(index: 0))
        }
        #expect(try db.loadRecords(drawCode: "ABC234").count == 1)
        #expect(try db.loadAudit(drawCode: "ABC234").count == 1)
    }

    @Test func rollsBackEverythingWhenALaterStepFails() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(draw())
        let code = storageError {
            try db.transaction {
                try db.appendRecord(record(index: 0))
                try db.appendRecord(record(index: 5))
            }
        }
        #expect(code == .chainConflict)
        #expect(try db.loadRecords(drawCode: "ABC234").isEmpty)
    }

    @Test func aFailedNestedStepCanBeCaughtWithoutLosingTheRest() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.transaction {
            try db.insertDraw(draw())
            #expect(storageError { try db.insertDraw(draw()) } == .alreadyExists)
            try db.appendRecord(record(index: 0))
        }
        #expect(try db.loadRecords(drawCode: "ABC234").count == 1)
    }

    @Test func passesCallerErrorsThrough() throws {
        struct Oops: Error {}
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        #expect(throws: Oops.self) {
            try db.transaction {
                try db.insertDraw(draw())
                throw Oops()
            }
        }
        #expect(try db.loadDraws().isEmpty)
    }
}

@Suite struct BrandingRepositoryTests {
    @Test func brandingIsStoredReplacedAndReadBackWithItsLogoBytes() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(DrawRow(code: "A", hostKeyHash: "h", createdAt: 1, configJSON: "{}", clearedThrough: -1))
        #expect(try db.loadBranding().isEmpty)
        let logo: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0, 255, 0, 13, 10]
        try db.saveBranding(code: "A", BrandingRow(title: "Gala", accent: "#c8102e", logoType: "image/png", logo: logo), at: 2)
        #expect(try db.loadBranding()["A"] == BrandingRow(title: "Gala", accent: "#c8102e", logoType: "image/png", logo: logo))
        try db.saveBranding(code: "A", BrandingRow(title: "Gala 2"), at: 3)
        #expect(try db.loadBranding() == ["A": BrandingRow(title: "Gala 2")])
        #expect(throws: StorageError.self) { try db.saveBranding(code: "nobody", BrandingRow(), at: 4) }
    }
}

@Suite struct PrizeMediaRepositoryTests {
    @Test func aSlotIsStoredReplacedListedByVersionAndRemoved() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(DrawRow(code: "A", hostKeyHash: "h", createdAt: 1, configJSON: "{}", clearedThrough: -1))
        #expect(try db.loadPrizeMediaVersions().isEmpty)
        try db.savePrizeMedia(code: "A", slot: "picture-0", type: "image/png", bytes: [1, 2, 3], version: "v1", at: 2)
        try db.savePrizeMedia(code: "A", slot: "music-0", type: "audio/ogg", bytes: [4], version: "m1", at: 2)
        try db.savePrizeMedia(code: "A", slot: "picture-0", type: "image/jpeg", bytes: [9], version: "v2", at: 3)
        #expect(try db.loadPrizeMediaVersions() == ["A": ["picture-0": PrizeMediaVersion(type: "image/jpeg", version: "v2"),
                                                          "music-0": PrizeMediaVersion(type: "audio/ogg", version: "m1")]])
        let picture = try db.prizeMedia(code: "A", slot: "picture-0")
        #expect(picture?.bytes == [9] && picture?.type == "image/jpeg" && picture?.version == "v2")
        try db.deletePrizeMedia(code: "A", slot: "picture-0")
        #expect(try db.prizeMedia(code: "A", slot: "picture-0") == nil)
        #expect(try db.loadPrizeMediaVersions() == ["A": ["music-0": PrizeMediaVersion(type: "audio/ogg", version: "m1")]])
        #expect(throws: StorageError.self) { try db.savePrizeMedia(code: "nobody", slot: "picture-0", type: "image/png", bytes: [1], version: "v", at: 4) }
    }
}

@Suite struct ServerKeyTests {
    @Test func theAdminKeyDigestIsStoredReplacedAndReadBack() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        #expect(try db.serverKeyHash("admin") == nil)
        try db.storeServerKeyHash("admin", hash: "aa", at: 1)
        try db.storeServerKeyHash("admin", hash: "bb", at: 2)
        #expect(try db.serverKeyHash("admin") == "bb")
        let reopened = try Database(path: dir.path("t.sqlite"))
        #expect(try reopened.serverKeyHash("admin") == "bb")
        #expect(throws: StorageError.self) { try db.storeServerKeyHash("other", hash: "cc", at: 3) }
    }
}
