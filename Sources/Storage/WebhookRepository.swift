/// One outgoing webhook of a draw as stored (issue #43, item 4). `events`: the event kinds,
/// comma-separated. `secret` signs deliveries; it stays in the database and is never exported.
public struct WebhookRow: Sendable, Equatable {
    public var id: String
    public var url: String
    public var format: String
    public var events: String
    public var language: String
    public var secret: String
    /// Unix milliseconds.
    public var createdAt: Int64

    public init(id: String, url: String, format: String, events: String, language: String, secret: String, createdAt: Int64) {
        self.id = id
        self.url = url
        self.format = format
        self.events = events
        self.language = language
        self.secret = secret
        self.createdAt = createdAt
    }
}

extension Database {
    public func saveWebhook(code: String, _ row: WebhookRow) throws(StorageError) {
        try statement("""
            INSERT INTO webhooks (draw_code, id, url, format, events, language, secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).run([.text(code), .text(row.id), .text(row.url), .text(row.format), .text(row.events), .text(row.language),
                      .text(row.secret), .real(Double(row.createdAt) / 1000)])
    }

    /// Whether a hook was there to delete.
    public func deleteWebhook(code: String, id: String) throws(StorageError) -> Bool {
        try statement("DELETE FROM webhooks WHERE draw_code = ? AND id = ?").run([.text(code), .text(id)])
        return connection.changes > 0
    }

    /// Every draw's hooks by code, oldest first.
    public func loadWebhooks() throws(StorageError) -> [String: [WebhookRow]] {
        let rows = try statement("""
            SELECT draw_code, id, url, format, events, language, secret, created_at FROM webhooks ORDER BY created_at, id
            """).query([]) { s in
            (s.text(0), WebhookRow(id: s.text(1), url: s.text(2), format: s.text(3), events: s.text(4), language: s.text(5),
                                   secret: s.text(6), createdAt: Int64((s.double(7) * 1000).rounded())))
        }
        var all: [String: [WebhookRow]] = [:]
        for (code, row) in rows { all[code, default: []].append(row) }
        return all
    }
}
