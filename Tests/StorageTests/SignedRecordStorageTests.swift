import Testing
@testable import Storage

/// Issue #47: a record's signature and its key are stored beside it (NULL for a record from
/// before signing, read back as nil), and a chain head's time-stamp is kept once per record.
@Suite struct SignedRecordStorageTests {
    @Test func signaturesAndTimeStampsAreStoredBesideTheRecords() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        try db.insertDraw(draw())
        try db.appendRecord(record(index: 0))
        var signed = record(index: 1)
        signed.signature = String(repeating: "ab", count: 64)
        signed.signatureKey = String(repeating: "cd", count: 32)
        try db.appendRecord(signed)
        let rows = try db.loadRecords(drawCode: "ABC234")
        #expect(rows[0].signature == nil && rows[0].signatureKey == nil)
        #expect(rows[1].signature == signed.signature && rows[1].signatureKey == signed.signatureKey)
        let stamp = TimeStampRow(index: 1, hash: signed.hash, tsa: "http://127.0.0.1:1/", response: [0x30, 0x03, 0x02, 0x01, 0x00])
        try db.saveTimeStamp(drawCode: "ABC234", stamp, at: 1)
        try db.saveTimeStamp(drawCode: "ABC234", TimeStampRow(index: 1, hash: signed.hash, tsa: "other", response: [1]), at: 2)
        #expect(try db.loadTimeStamps(drawCode: "ABC234") == [stamp])
        #expect(try db.loadTimeStamps(drawCode: "OTHER1") == [])
    }
}
