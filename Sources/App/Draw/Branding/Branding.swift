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
    /// The prize tiers' pictures and music by slot (`picture-0`): types and versions; the bytes
    /// stay in the store until a page asks.
    var media: [String: PrizeMediaVersion] = [:]

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

    /// `{"title","accent","logo","media"}` as `GET /api/draws/<code>/branding` and the `branding` message carry it.
    func json(code: String) -> JSONValue {
        Self.json(code: code, title: title, accent: accent, logoVersion: logoVersion, media: media.mapValues(\.version))
    }

    /// The same from the parts (cluster mode keeps the versions beside them in Redis). `media`:
    /// slot → version, sent as slot → URL (`{"picture-0": "/api/draws/C/prizes/0/picture?v=…"}`).
    static func json(code: String, title: String, accent: String, logoVersion: String?, media: [String: String] = [:]) -> JSONValue {
        var urls: [String: JSONValue] = [:]
        for (name, version) in media { if let slot = PrizeMediaSlot(name: name) { urls[name] = .string(slot.url(code: code, version: version)) } }
        return .object([
            "title": title.isEmpty ? .null : .string(title),
            "accent": accent.isEmpty ? .null : .string(accent),
            "logo": logoVersion.map { .string("/api/draws/\(code)/logo?v=\($0)") } ?? .null,
            "media": .object(urls),
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
    /// Media bytes as last read, by `code/slot` (pages cache them for good by version, so each
    /// is read from the store about once).
    private let mediaBytes = Lock<[String: (type: String, bytes: [UInt8], version: String)]>([:])

    /// Loads what is stored (start-up; blocks): branding rows, and media types and versions.
    init(storage: StorageQueue) throws {
        self.storage = storage
        let (rows, media) = try storage.sync { database in (try database.loadBranding(), try database.loadPrizeMediaVersions()) }
        var all = rows.mapValues(Branding.init)
        for (code, slots) in media { all[code, default: Branding()].media = slots }
        cache = Lock(all)
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
            if case .success = result {
                // The media are saved on their own: keep the ones stored meanwhile.
                cache.withLock { all in
                    var next = branding
                    next.media = all[code]?.media ?? [:]
                    all[code] = next
                }
            }
            completion(result)
        })
    }

    /// Stores (`media` given) or removes one slot of `code`'s prize media, then serves it;
    /// `completion` (on the storage thread) gets the draw's branding after the change.
    func saveMedia(_ slot: PrizeMediaSlot, _ media: (type: String, bytes: [UInt8], version: String)?, for code: String,
                   completion: @escaping @Sendable (Result<Branding, any Error>) -> Void) {
        let name = slot.name
        storage.async({ database in
            if let media {
                try database.savePrizeMedia(code: code, slot: name, type: media.type, bytes: media.bytes, version: media.version,
                                            at: Double(DrawPersistence.now) / 1000)
            } else {
                try database.deletePrizeMedia(code: code, slot: name)
            }
        }, completion: { [cache, mediaBytes] result in
            completion(result.map {
                mediaBytes.withLock { $0["\(code)/\(name)"] = media }
                return cache.withLock { all in
                    var next = all[code] ?? Branding()
                    next.media[name] = media.map { PrizeMediaVersion(type: $0.type, version: $0.version) }
                    all[code] = next
                    return next
                }
            })
        })
    }

    /// One slot's bytes (from memory when read before), or nil when the slot is empty.
    func media(_ slot: PrizeMediaSlot, of code: String,
               completion: @escaping @Sendable (Result<(type: String, bytes: [UInt8], version: String)?, any Error>) -> Void) {
        let key = "\(code)/\(slot.name)"
        guard let current = branding(of: code).media[slot.name] else { return completion(.success(nil)) }
        if let kept = mediaBytes.withLock({ $0[key] }), kept.version == current.version { return completion(.success(kept)) }
        storage.async({ database in try database.prizeMedia(code: code, slot: slot.name) }, completion: { [mediaBytes] result in
            if case .success(let media?) = result { mediaBytes.withLock { $0[key] = media } }
            completion(result.map { $0.map { ($0.type, $0.bytes, $0.version) } })
        })
    }
}
