/// What the retention sweep and the admin view need of a draw whose settings name
/// `retentionDays` (issue #41): read in one query, decided by `RetentionPolicy` in the App.
public struct RetentionRow: Sendable, Equatable {
    public var code: String
    /// The stored settings (JSON text); the App reads `retentionDays` from them.
    public var configJSON: String
    /// Seconds since 1970: the newest record other than a commitment, or entrant join or
    /// removal, whichever is later (else the draw's creation).
    public var lastActivity: Double
    /// Entrants that still hold a name, fields or a device hash.
    public var personalEntrants: Int
    /// The check-in settings (JSON text), nil when never set: they say whether entries are open.
    public var checkinJSON: String?
    public var archived: Bool

    public init(code: String, configJSON: String, lastActivity: Double, personalEntrants: Int, checkinJSON: String?, archived: Bool) {
        self.code = code
        self.configJSON = configJSON
        self.lastActivity = lastActivity
        self.personalEntrants = personalEntrants
        self.checkinJSON = checkinJSON
        self.archived = archived
    }
}

extension Database {
    /// Every live draw whose settings mention `retentionDays`, with its last activity and how
    /// many of its entrants still hold personal data.
    public func retentionRows() throws(StorageError) -> [RetentionRow] {
        try statement("""
            SELECT d.code, d.config_json, d.created_at,
                   (SELECT MAX(r.created_at) FROM records r WHERE r.draw_code = d.code AND r.kind <> 'commit'),
                   (SELECT MAX(MAX(e.joined_at), COALESCE(MAX(e.removed_at), 0)) FROM entrants e WHERE e.draw_code = d.code),
                   (SELECT COUNT(*) FROM entrants e WHERE e.draw_code = d.code
                      AND (e.name IS NOT NULL OR e.fields_json IS NOT NULL OR e.device_hash IS NOT NULL)),
                   (SELECT c.settings_json FROM checkin c WHERE c.draw_code = d.code),
                   d.archived_at IS NOT NULL
            FROM draws d
            WHERE d.deleted_at IS NULL AND instr(d.config_json, '"retentionDays"') > 0
            ORDER BY d.code
            """).query([]) { s in
            let last = [s.double(2), s.isNull(3) ? 0 : s.double(3), s.isNull(4) ? 0 : s.double(4)].max() ?? 0
            return RetentionRow(code: s.text(0), configJSON: s.text(1), lastActivity: last, personalEntrants: s.int(5),
                                checkinJSON: s.isNull(6) ? nil : s.text(6), archived: s.int(7) != 0)
        }
    }
}
