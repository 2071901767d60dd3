/// A prize tier's picture or music for the stage, as stored: its slot (`picture-<tier>` or
/// `music-<tier>`), media type (from its own bytes, checked by App) and a version that changes
/// with the bytes.
public struct PrizeMediaVersion: Sendable, Hashable {
    public var type: String
    public var version: String

    public init(type: String, version: String) {
        self.type = type
        self.version = version
    }
}

extension Database {
    /// Stores (replaces) one slot of draw `code`'s prize media.
    public func savePrizeMedia(code: String, slot: String, type: String, bytes: [UInt8], version: String, at: Double) throws(StorageError) {
        try statement("""
            INSERT INTO prize_media (draw_code, slot, type, bytes, version, updated_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (draw_code, slot) DO UPDATE SET type = excluded.type, bytes = excluded.bytes,
                version = excluded.version, updated_at = excluded.updated_at
            """).run([.text(code), .text(slot), .text(type), .blob(bytes), .text(version), .real(at)])
    }

    /// Removes one slot (nothing when it is empty).
    public func deletePrizeMedia(code: String, slot: String) throws(StorageError) {
        try statement("DELETE FROM prize_media WHERE draw_code = ? AND slot = ?").run([.text(code), .text(slot)])
    }

    /// Every draw's slots with their types and versions (not the bytes): start-up.
    public func loadPrizeMediaVersions() throws(StorageError) -> [String: [String: PrizeMediaVersion]] {
        let rows = try statement("SELECT draw_code, slot, type, version FROM prize_media").query([]) { s in
            (code: s.text(0), slot: s.text(1), media: PrizeMediaVersion(type: s.text(2), version: s.text(3)))
        }
        var out: [String: [String: PrizeMediaVersion]] = [:]
        for row in rows { out[row.code, default: [:]][row.slot] = row.media }
        return out
    }

    /// One slot's bytes with its type and version, or nil.
    public func prizeMedia(code: String, slot: String) throws(StorageError) -> (type: String, bytes: [UInt8], version: String)? {
        try statement("SELECT type, bytes, version FROM prize_media WHERE draw_code = ? AND slot = ?")
            .query([.text(code), .text(slot)]) { s in (s.text(0), s.blob(1), s.text(2)) }.first
    }
}
