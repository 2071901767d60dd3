/// One line of the admin's list of draws (`GET /api/draws`).
public struct DrawListing: Sendable, Equatable {
    public var code: String
    /// Seconds since 1970, as stored.
    public var createdAt: Double
    /// The screen's event title, when the host set one (branding).
    public var title: String?
    /// Rounds drawn (records of kind `round`, cleared ones included).
    public var rounds: Int
    /// The newest record's time other than a commitment (a round, void, Clear or pool change), else `createdAt`.
    public var lastActivity: Double
    public var archivedAt: Double?
}

extension Database {
    /// Draws newest first, at most `limit`, after draw `after` (keyset paging on created_at,
    /// code: stable while draws are added or deleted); deleted draws are left out. `.notFound`
    /// when `after` names no draw.
    public func listDraws(limit: Int, after: String?) throws(StorageError) -> [DrawListing] {
        let select = """
            SELECT d.code, d.created_at, b.title,
                   (SELECT COUNT(*) FROM records r WHERE r.draw_code = d.code AND r.kind = 'round'),
                   (SELECT MAX(r.created_at) FROM records r WHERE r.draw_code = d.code AND r.kind <> 'commit'),
                   d.archived_at
            FROM draws d LEFT JOIN branding b ON b.draw_code = d.code
            WHERE d.deleted_at IS NULL
            """
        let order = " ORDER BY d.created_at DESC, d.code DESC LIMIT ?"
        let row = { (s: SQLiteStatement) -> DrawListing in
            let title = s.isNull(2) ? "" : s.text(2)
            return DrawListing(code: s.text(0), createdAt: s.double(1), title: title.isEmpty ? nil : title, rounds: s.int(3),
                               lastActivity: s.isNull(4) ? s.double(1) : s.double(4), archivedAt: s.isNull(5) ? nil : s.double(5))
        }
        guard let after else { return try statement(select + order).query([.integer(limit)], row: row) }
        let known = try statement("SELECT 1 FROM draws WHERE code = ?").query([.text(after)]) { $0.int(0) }
        if known.isEmpty { throw StorageError(.notFound, detail: "no such draw") }
        return try statement(select + " AND (d.created_at, d.code) < (SELECT created_at, code FROM draws WHERE code = ?)" + order)
            .query([.text(after), .integer(limit)], row: row)
    }

    /// The codes of archived draws and of deleted ones (tombstones: those codes are never reused).
    public func loadDrawMarks() throws(StorageError) -> (archived: Set<String>, deleted: Set<String>) {
        let rows = try statement("SELECT code, deleted_at IS NOT NULL FROM draws WHERE archived_at IS NOT NULL OR deleted_at IS NOT NULL")
            .query([]) { ($0.text(0), $0.int(1) != 0) }
        return (Set(rows.filter { !$0.1 }.map(\.0)), Set(rows.filter { $0.1 }.map(\.0)))
    }

    /// Archives (`at` seconds) or un-archives (nil) a draw; `.notFound` for an unknown or deleted code.
    public func setArchived(code: String, at seconds: Double?) throws(StorageError) {
        try statement("UPDATE draws SET archived_at = ? WHERE code = ? AND deleted_at IS NULL")
            .run([seconds.map { .real($0) } ?? .null, .text(code)])
        if connection.changes == 0 { throw StorageError(.notFound, detail: "no such draw") }
    }

    /// Deletes a draw's records, entrants, check-in settings, branding, prize media and webhooks, and keeps its row as a
    /// tombstone (no key hash, no settings) and its audit chain. Call inside a transaction.
    public func deleteDraw(code: String, at seconds: Double) throws(StorageError) {
        try statement("UPDATE draws SET deleted_at = ?, host_key_hash = '', config_json = '{}' WHERE code = ? AND deleted_at IS NULL")
            .run([.real(seconds), .text(code)])
        if connection.changes == 0 { throw StorageError(.notFound, detail: "no such draw") }
        for table in ["records", "entrant_values", "entrants", "checkin", "branding", "prize_media", "webhooks"] {
            try statement("DELETE FROM \(table) WHERE draw_code = ?").run([.text(code)])
        }
    }
}

extension Database {
    /// The settings of the other (not deleted) draws whose settings mention `code` as a JSON
    /// string: the candidates that may exclude its winners (the caller reads them to be sure).
    public func drawSettingsMentioning(_ code: String) throws(StorageError) -> [(code: String, configJSON: String)] {
        try statement("SELECT code, config_json FROM draws WHERE deleted_at IS NULL AND code <> ? AND instr(config_json, ?) > 0")
            .query([.text(code), .text("\"\(code)\"")]) { ($0.text(0), $0.text(1)) }
    }
}
