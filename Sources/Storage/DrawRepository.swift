/// A stored draw: indexed columns plus the engine's configuration as opaque JSON.
public struct DrawRow: Sendable, Hashable {
    public var code: String
    public var hostKeyHash: String
    public var createdAt: Double
    public var configJSON: String
    /// Records up to and including this index are hidden by Clear (kept in the archive).
    public var clearedThrough: Int

    public init(code: String, hostKeyHash: String, createdAt: Double, configJSON: String, clearedThrough: Int) {
        self.code = code
        self.hostKeyHash = hostKeyHash
        self.createdAt = createdAt
        self.configJSON = configJSON
        self.clearedThrough = clearedThrough
    }
}

extension Database {
    /// Adds a draw; `.alreadyExists` if the code is taken.
    public func insertDraw(_ row: DrawRow) throws(StorageError) {
        try statement("""
            INSERT INTO draws (code, host_key_hash, created_at, config_json, cleared_through)
            VALUES (?, ?, ?, ?, ?)
            """).run([.text(row.code), .text(row.hostKeyHash), .real(row.createdAt), .text(row.configJSON),
                      .integer(row.clearedThrough)])
    }

    /// Replaces a draw's configuration; `.notFound` for an unknown code.
    public func updateConfig(code: String, configJSON: String) throws(StorageError) {
        try statement("UPDATE draws SET config_json = ? WHERE code = ?").run([.text(configJSON), .text(code)])
        if connection.changes == 0 { throw StorageError(.notFound, detail: "no such draw") }
    }

    /// Records the Clear mark; `.notFound` for an unknown code.
    public func setClearedThrough(code: String, index: Int) throws(StorageError) {
        try statement("UPDATE draws SET cleared_through = ? WHERE code = ?").run([.integer(index), .text(code)])
        if connection.changes == 0 { throw StorageError(.notFound, detail: "no such draw") }
    }

    /// Every draw (not deleted), oldest first.
    public func loadDraws() throws(StorageError) -> [DrawRow] {
        try statement("""
            SELECT code, host_key_hash, created_at, config_json, cleared_through
            FROM draws WHERE deleted_at IS NULL ORDER BY created_at, code
            """).query([], row: Self.drawRow)
    }

    /// One draw, or nil (also for a deleted draw).
    public func loadDraw(code: String) throws(StorageError) -> DrawRow? {
        try statement("""
            SELECT code, host_key_hash, created_at, config_json, cleared_through
            FROM draws WHERE code = ? AND deleted_at IS NULL
            """).query([.text(code)], row: Self.drawRow).first
    }

    private static func drawRow(_ s: SQLiteStatement) -> DrawRow {
        DrawRow(code: s.text(0), hostKeyHash: s.text(1), createdAt: s.double(2), configJSON: s.text(3),
                clearedThrough: s.int(4))
    }
}
