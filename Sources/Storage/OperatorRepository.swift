/// A named operator of a draw (issue #41), as stored: never the key, only its SHA-256.
public struct OperatorRow: Sendable, Hashable {
    public var drawCode: String
    /// Public, unique within the draw (the audit log and the revoke call name it).
    public var id: String
    public var name: String
    /// `host`, `presenter`, `checkin` or `observer`.
    public var role: String
    public var keyHash: String
    public var createdAt: Double
    public var revokedAt: Double?

    public init(drawCode: String, id: String, name: String, role: String, keyHash: String, createdAt: Double, revokedAt: Double? = nil) {
        self.drawCode = drawCode
        self.id = id
        self.name = name
        self.role = role
        self.keyHash = keyHash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

extension Database {
    /// Adds an operator (`.constraint` for a repeated id or key hash, or an unknown role).
    public func insertOperator(_ row: OperatorRow) throws(StorageError) {
        try statement("""
            INSERT INTO operators (draw_code, id, name, role, key_hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, NULL)
            """).run([.text(row.drawCode), .text(row.id), .text(row.name), .text(row.role), .text(row.keyHash), .real(row.createdAt)])
    }

    /// Marks an active operator revoked; false when none of that id is active.
    public func revokeOperator(drawCode: String, id: String, at: Double) throws(StorageError) -> Bool {
        try statement("UPDATE operators SET revoked_at = ? WHERE draw_code = ? AND id = ? AND revoked_at IS NULL")
            .run([.real(at), .text(drawCode), .text(id)])
        return connection.changes > 0
    }

    /// Every operator of every draw (revoked ones too), oldest first: read once at start-up.
    public func loadOperators() throws(StorageError) -> [OperatorRow] {
        try statement("""
            SELECT draw_code, id, name, role, key_hash, created_at, revoked_at FROM operators ORDER BY created_at, id
            """).query([]) { s in
            OperatorRow(drawCode: s.text(0), id: s.text(1), name: s.text(2), role: s.text(3), keyHash: s.text(4),
                        createdAt: s.double(5), revokedAt: s.isNull(6) ? nil : s.double(6))
        }
    }
}
