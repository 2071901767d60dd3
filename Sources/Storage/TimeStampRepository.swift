/// An RFC 3161 time-stamp of one record's hash (issue #47): the TSA's URL and its DER answer.
public struct TimeStampRow: Sendable, Equatable {
    public var index: Int
    public var hash: String
    public var tsa: String
    public var response: [UInt8]

    public init(index: Int, hash: String, tsa: String, response: [UInt8]) {
        self.index = index
        self.hash = hash
        self.tsa = tsa
        self.response = response
    }
}

extension Database {
    /// Keeps the time-stamp of record `row.index` of draw `drawCode` (the first one kept wins:
    /// a record is stamped once).
    public func saveTimeStamp(drawCode: String, _ row: TimeStampRow, at: Double) throws(StorageError) {
        try statement("""
            INSERT OR IGNORE INTO timestamps (draw_code, idx, hash, tsa, response, created_at) VALUES (?, ?, ?, ?, ?, ?)
            """).run([.text(drawCode), .integer(row.index), .text(row.hash), .text(row.tsa), .blob(row.response), .real(at)])
    }

    /// A draw's time-stamps by record index.
    public func loadTimeStamps(drawCode: String) throws(StorageError) -> [TimeStampRow] {
        try statement("SELECT idx, hash, tsa, response FROM timestamps WHERE draw_code = ? ORDER BY idx")
            .query([.text(drawCode)]) { s in TimeStampRow(index: s.int(0), hash: s.text(1), tsa: s.text(2), response: s.blob(3)) }
    }
}
