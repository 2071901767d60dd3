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

    static let maxTitleLength = 100
    /// A logo is drawn at most a few hundred pixels tall; 256 KiB is plenty for that.
    static let maxLogoBytes = 256 * 1024

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
        .object([
            "title": title.isEmpty ? .null : .string(title),
            "accent": accent.isEmpty ? .null : .string(accent),
            "logo": logoVersion.map { .string("/api/draws/\(code)/logo?v=\($0)") } ?? .null,
        ])
    }

    /// A title: trimmed, at most 100 characters, no control characters ("" clears it); else `bad_title`.
    static func title(_ raw: String) throws(BrandingError) -> String {
        let text = EntrantList.trim(raw)
        guard text.count <= maxTitleLength, !text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) })
        else { throw BrandingError("bad_title") }
        return text
    }

    /// `#rgb` or `#rrggbb` (any case) as `#rrggbb` ("" clears it); anything else (a CSS name,
    /// `url(…)`, `;`) is `bad_accent`, so nothing but a colour ever reaches a page's style.
    static func accent(_ raw: String) throws(BrandingError) -> String {
        let text = EntrantList.trim(raw).lowercased()
        if text.isEmpty { return "" }
        let digits = Array(text.utf8.dropFirst())
        guard text.utf8.first == UInt8(ascii: "#"), digits.count == 3 || digits.count == 6,
              digits.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { throw BrandingError("bad_accent") }
        if digits.count == 6 { return text }
        return "#" + String(decoding: digits.flatMap { [$0, $0] }, as: UTF8.self)
    }

    /// The media type of a logo from its first bytes (never from a name or a header): PNG,
    /// JPEG or WebP. SVG (which can carry script) and everything else is nil.
    static func imageType(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) { return "image/png" }
        if bytes.starts(with: [0xff, 0xd8, 0xff]) { return "image/jpeg" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) { return "image/webp" }
        return nil
    }
}

struct BrandingError: Error, Equatable, Sendable {
    let code: String
    init(_ code: String) { self.code = code }
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
