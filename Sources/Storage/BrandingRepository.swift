/// A draw's branding for the screen, as stored: an event title and accent colour (empty: none),
/// and a logo image with its media type (nil: none). Checked by App before it is stored.
public struct BrandingRow: Sendable, Hashable {
    public var title: String
    public var accent: String
    public var logoType: String
    public var logo: [UInt8]?

    public init(title: String = "", accent: String = "", logoType: String = "", logo: [UInt8]? = nil) {
        self.title = title
        self.accent = accent
        self.logoType = logoType
        self.logo = logo
    }
}

extension Database {
    /// Stores (replaces) draw `code`'s branding.
    public func saveBranding(code: String, _ row: BrandingRow, at: Double) throws(StorageError) {
        try statement("""
            INSERT INTO branding (draw_code, title, accent, logo_type, logo, updated_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (draw_code) DO UPDATE SET title = excluded.title, accent = excluded.accent,
                logo_type = excluded.logo_type, logo = excluded.logo, updated_at = excluded.updated_at
            """).run([.text(code), .text(row.title), .text(row.accent), .text(row.logoType),
                      row.logo.map { .blob($0) } ?? .null, .real(at)])
    }

    /// Every draw's branding by code.
    public func loadBranding() throws(StorageError) -> [String: BrandingRow] {
        let rows = try statement("SELECT draw_code, title, accent, logo_type, logo FROM branding").query([]) { s in
            (s.text(0), BrandingRow(title: s.text(1), accent: s.text(2), logoType: s.text(3), logo: s.isNull(4) ? nil : s.blob(4)))
        }
        return Dictionary(rows, uniquingKeysWith: { _, last in last })
    }
}
