/// One entry of a draw's append-only audit log (who did what, when), hash-chained like records.
/// Events not tied to one draw use the draw code `""`.
public struct AuditRow: Sendable, Hashable {
    public var drawCode: String
    /// 0, 1, 2, … per draw code.
    public var index: Int
    public var at: Double
    /// `host`, `admin` or `system`.
    public var actor: String
    public var action: String
    /// Details as JSON; never a key or other secret.
    public var detailJSON: String
    public var prevHash: String
    public var hash: String

    public init(drawCode: String, index: Int, at: Double, actor: String, action: String, detailJSON: String,
                prevHash: String, hash: String) {
        self.drawCode = drawCode
        self.index = index
        self.at = at
        self.actor = actor
        self.action = action
        self.detailJSON = detailJSON
        self.prevHash = prevHash
        self.hash = hash
    }
}

extension Database {
    /// Appends (and syncs) an audit entry; `.chainConflict` unless it extends the chain
    /// (index 0 links to `RecordRow.genesisHash`); `.constraint` for an unknown actor.
    public func appendAudit(_ row: AuditRow) throws(StorageError) {
        try storageTransaction { () throws(StorageError) in
            let last = try statement("""
                SELECT idx, hash FROM audit WHERE draw_code = ? ORDER BY idx DESC LIMIT 1
                """).query([.text(row.drawCode)]) { (index: $0.int(0), hash: $0.text(1)) }.first
            try Self.checkLink(index: row.index, prevHash: row.prevHash, last: last)
            try statement("""
                INSERT INTO audit (draw_code, idx, at, actor, action, detail_json, prev_hash, hash)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """).run([.text(row.drawCode), .integer(row.index), .real(row.at), .text(row.actor),
                          .text(row.action), .text(row.detailJSON), .text(row.prevHash), .text(row.hash)])
        }
    }

    /// One page of a draw's audit entries in chain order: those with index > `after` (every
    /// entry when nil), at most `limit` (`GET /api/draws/<code>/audit`, reads by the primary key).
    public func loadAudit(drawCode: String, after: Int?, limit: Int) throws(StorageError) -> [AuditRow] {
        try statement("""
            SELECT draw_code, idx, at, actor, action, detail_json, prev_hash, hash
            FROM audit WHERE draw_code = ? AND idx > ? ORDER BY idx LIMIT ?
            """).query([.text(drawCode), .integer(after ?? -1), .integer(limit)]) { s in
            AuditRow(drawCode: s.text(0), index: s.int(1), at: s.double(2), actor: s.text(3), action: s.text(4),
                     detailJSON: s.text(5), prevHash: s.text(6), hash: s.text(7))
        }
    }

    /// A draw's audit entries in chain order.
    public func loadAudit(drawCode: String) throws(StorageError) -> [AuditRow] {
        try statement("""
            SELECT draw_code, idx, at, actor, action, detail_json, prev_hash, hash
            FROM audit WHERE draw_code = ? ORDER BY idx
            """).query([.text(drawCode)]) { s in
            AuditRow(drawCode: s.text(0), index: s.int(1), at: s.double(2), actor: s.text(3), action: s.text(4),
                     detailJSON: s.text(5), prevHash: s.text(6), hash: s.text(7))
        }
    }
}

extension Database {
    /// A draw's audit entries of one `action`, in chain order (the prize hand-overs, issue 45).
    public func loadAudit(drawCode: String, action: String) throws(StorageError) -> [AuditRow] {
        try statement("""
            SELECT draw_code, idx, at, actor, action, detail_json, prev_hash, hash
            FROM audit WHERE draw_code = ? AND action = ? ORDER BY idx
            """).query([.text(drawCode), .text(action)]) { s in
            AuditRow(drawCode: s.text(0), index: s.int(1), at: s.double(2), actor: s.text(3), action: s.text(4),
                     detailJSON: s.text(5), prevHash: s.text(6), hash: s.text(7))
        }
    }

    /// The newest of a draw's audit entries whose action is one of `actions`, or nil: reads one
    /// row, not the chain.
    public func latestAudit(drawCode: String, among actions: [String]) throws(StorageError) -> AuditRow? {
        guard !actions.isEmpty else { return nil }
        let marks = Array(repeating: "?", count: actions.count).joined(separator: ", ")
        return try statement("""
            SELECT draw_code, idx, at, actor, action, detail_json, prev_hash, hash
            FROM audit WHERE draw_code = ? AND action IN (\(marks)) ORDER BY idx DESC LIMIT 1
            """).query([.text(drawCode)] + actions.map { .text($0) }) { s in
            AuditRow(drawCode: s.text(0), index: s.int(1), at: s.double(2), actor: s.text(3), action: s.text(4),
                     detailJSON: s.text(5), prevHash: s.text(6), hash: s.text(7))
        }.first
    }
}
