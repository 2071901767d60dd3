/// One checked-in entrant as stored. `name`, `fieldsJSON` and `deviceHash` are nil once erased.
public struct EntrantRow: Sendable, Hashable {
    public var drawCode: String
    public var publicID: String
    /// 1, 2, 3, … per draw, in join order.
    public var seq: Int
    public var name: String?
    /// The host's fields as a JSON object text.
    public var fieldsJSON: String?
    /// `hex(SHA256(device token))`; the token itself is never stored.
    public var deviceHash: String?
    public var joinedAt: Double
    public var removedAt: Double?
    public var removedReason: String?

    public init(drawCode: String, publicID: String, seq: Int, name: String?, fieldsJSON: String?, deviceHash: String?,
                joinedAt: Double, removedAt: Double? = nil, removedReason: String? = nil) {
        self.drawCode = drawCode
        self.publicID = publicID
        self.seq = seq
        self.name = name
        self.fieldsJSON = fieldsJSON
        self.deviceHash = deviceHash
        self.joinedAt = joinedAt
        self.removedAt = removedAt
        self.removedReason = removedReason
    }
}

extension Database {
    /// Adds an entrant and the values it holds for unique fields, all or nothing. A device
    /// or a unique value already stored for the draw is `.constraint` (nothing is stored twice).
    public func insertEntrant(_ row: EntrantRow, uniqueValues: [(field: String, value: String)]) throws(StorageError) {
        try storageTransaction { () throws(StorageError) in
            try statement("""
                INSERT INTO entrants (draw_code, public_id, seq, name, fields_json, device_hash, joined_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """).run([.text(row.drawCode), .text(row.publicID), .integer(row.seq), row.name.map { .text($0) } ?? .null,
                          row.fieldsJSON.map { .text($0) } ?? .null, row.deviceHash.map { .text($0) } ?? .null,
                          .real(row.joinedAt)])
            for unique in uniqueValues {
                try statement("INSERT INTO entrant_values (draw_code, field, value, public_id) VALUES (?, ?, ?, ?)")
                    .run([.text(row.drawCode), .text(unique.field), .text(unique.value), .text(row.publicID)])
            }
        }
    }

    /// Marks an entrant removed (kept, with the reason) and frees its unique values.
    public func removeEntrant(drawCode: String, publicID: String, reason: String, at: Double) throws(StorageError) {
        try storageTransaction { () throws(StorageError) in
            try statement("""
                UPDATE entrants SET removed_at = ?, removed_reason = ?
                WHERE draw_code = ? AND public_id = ? AND removed_at IS NULL
                """).run([.real(at), .text(reason), .text(drawCode), .text(publicID)])
            if connection.changes == 0 { throw StorageError(.notFound, detail: "no such entrant") }
            try statement("DELETE FROM entrant_values WHERE draw_code = ? AND public_id = ?").run([.text(drawCode), .text(publicID)])
        }
    }

    /// Erases every entrant's personal columns (name, fields, device hash) and unique values,
    /// and marks those still in the pool removed; the public ids stay.
    public func eraseEntrants(drawCode: String, at: Double) throws(StorageError) {
        try storageTransaction { () throws(StorageError) in
            try statement("""
                UPDATE entrants SET removed_at = ?, removed_reason = 'erased' WHERE draw_code = ? AND removed_at IS NULL
                """).run([.real(at), .text(drawCode)])
            try statement("UPDATE entrants SET name = NULL, fields_json = NULL, device_hash = NULL WHERE draw_code = ?")
                .run([.text(drawCode)])
            try statement("DELETE FROM entrant_values WHERE draw_code = ?").run([.text(drawCode)])
        }
    }

    /// A draw's entrants (removed ones included), in join order.
    public func loadEntrants(drawCode: String) throws(StorageError) -> [EntrantRow] {
        try statement("""
            SELECT public_id, seq, name, fields_json, device_hash, joined_at, removed_at, removed_reason
            FROM entrants WHERE draw_code = ? ORDER BY seq
            """).query([.text(drawCode)]) { s in
            EntrantRow(drawCode: drawCode, publicID: s.text(0), seq: s.int(1), name: s.isNull(2) ? nil : s.text(2),
                       fieldsJSON: s.isNull(3) ? nil : s.text(3), deviceHash: s.isNull(4) ? nil : s.text(4),
                       joinedAt: s.double(5), removedAt: s.isNull(6) ? nil : s.double(6),
                       removedReason: s.isNull(7) ? nil : s.text(7))
        }
    }

    /// Stores a draw's check-in settings (JSON text), replacing earlier ones.
    public func saveCheckinSettings(drawCode: String, json: String) throws(StorageError) {
        try statement("""
            INSERT INTO checkin (draw_code, settings_json) VALUES (?, ?)
            ON CONFLICT (draw_code) DO UPDATE SET settings_json = excluded.settings_json
            """).run([.text(drawCode), .text(json)])
    }

    /// A draw's check-in settings, or nil when never set.
    public func loadCheckinSettings(drawCode: String) throws(StorageError) -> String? {
        try statement("SELECT settings_json FROM checkin WHERE draw_code = ?").query([.text(drawCode)]) { $0.text(0) }.first
    }
}
