import Crypto
import DrawEngine
import JSON
import Locking
import Storage

/// A draw's branding for the screen (issue #15): an event title, an accent colour and a logo.
/// Presentation only: it never enters the pool, the lock or the chain.
struct Branding: Sendable, Equatable {
    var title = ""
    /// `#rrggbb` (lower case), or "" for the page's own colour.
    var accent = ""
    /// `image/png`, `image/jpeg` or `image/webp` when there is a logo.
    var logoType = ""
    var logo: [UInt8]? = nil

    static let maxLogoBytes = BrandingRules.maxLogoBytes

    init(title: String = "", accent: String = "", logoType: String = "", logo: [UInt8]? = nil) {
        self.title = title
        self.accent = accent
        self.logoType = logoType
        self.logo = logo
    }

    init(_ row: BrandingRow) {
        self.init(title: row.title, accent: row.accent, logoType: row.logoType, logo: row.logo)
    }

    var row: BrandingRow { BrandingRow(title: title, accent: accent, logoType: logoType, logo: logo) }

    /// Changes with the logo's bytes, so a page's cached copy is replaced when the logo is.
    var logoVersion: String? { logo.map { String(SHA256.hexDigest($0).prefix(16)) } }

    /// `{"title","accent","logo"}` as `GET /api/draws/<code>/branding` and the `branding` message carry it.
    func json(code: String) -> JSONValue {
        Self.json(code: code, title: title, accent: accent, logoVersion: logoVersion)
    }

    /// The same from the parts (cluster mode keeps the logo's version beside it in Redis).
    static func json(code: String, title: String, accent: String, logoVersion: String?) -> JSONValue {
        .object([
            "title": title.isEmpty ? .null : .string(title),
            "accent": accent.isEmpty ? .null : .string(accent),
            "logo": logoVersion.map { .string("/api/draws/\(code)/logo?v=\($0)") } ?? .null,
        ])
    }

    /// The `branding` message every page of the draw hears when it changes.
    static func message(_ json: JSONValue) -> String {
        var message = json.objectValue ?? [:]
        message["type"] = .string("branding")
        return JSONValue.object(message).canonicalString
    }
}

/// Every draw's branding, in memory (read by page requests) and in the store (written first).
final class BrandingStore: Sendable {
    private let storage: StorageQueue
    private let cache: Lock<[String: Branding]>

    /// Loads what is stored (start-up; blocks).
    init(storage: StorageQueue) throws {
        self.storage = storage
        let rows = try storage.sync { database in try database.loadBranding() }
        cache = Lock(rows.mapValues(Branding.init))
    }

    func branding(of code: String) -> Branding {
        cache.withLock { $0[code] } ?? Branding()
    }

    /// Stores `branding` for `code`, then serves it; `completion` runs on the storage thread.
    func save(_ branding: Branding, for code: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let row = branding.row
        storage.async({ database in
            try database.saveBranding(code: code, row, at: Double(DrawPersistence.now) / 1000)
        }, completion: { [cache] result in
            if case .success = result { cache.withLock { $0[code] = branding } }
            completion(result)
        })
    }
}
