/// A draw's screen branding as cluster mode keeps it in Redis (`{d:CODE}:branding`, a hash:
/// `title`, `accent`, `logoType`, `logo` (the image's bytes), `logoVersion`, and per prize media
/// slot `media:<slot>`, `media:<slot>:type`; `{d:CODE}:media`, a hash: slot → version), shared
/// by every instance. Changes go through one script that writes them and announces the draw's new
/// branding (without the logo's bytes) on `tombola:branding`, which every instance hears.
public struct BrandingRecord: Sendable, Equatable {
    public var title = ""
    public var accent = ""
    public var logoType = ""
    public var logoVersion = ""
    /// The prize tiers' pictures and music: slot (`picture-0`) → version.
    public var media: [String: String] = [:]

    public init(title: String = "", accent: String = "", logoType: String = "", logoVersion: String = "", media: [String: String] = [:]) {
        self.title = title
        self.accent = accent
        self.logoType = logoType
        self.logoVersion = logoVersion
        self.media = media
    }

    /// `slot=version,slot=version` (sorted) as the script publishes the media.
    static func parseMedia(_ text: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { out[String(parts[0])] = String(parts[1]) }
        }
        return out
    }

    /// The one channel on which every instance hears branding changes (rare: a host's edit).
    public static let channel = "tombola:branding"

    /// `CODE\nlogoVersion\nlogoType\naccent\nmedia\ntitle` as the script publishes it (the
    /// title, which may hold anything, last). Returns the code and the record.
    public static func parseAnnouncement(_ payload: [UInt8]) -> (code: String, record: BrandingRecord)? {
        let parts = String(decoding: payload, as: UTF8.self).split(separator: "\n", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6, !parts[0].isEmpty else { return nil }
        return (String(parts[0]), BrandingRecord(title: String(parts[5]), accent: String(parts[3]), logoType: String(parts[2]),
                                                 logoVersion: String(parts[1]), media: parseMedia(parts[4])))
    }
}

/// A change to a draw's branding: only the fields named change (two hosts editing the title
/// and the logo at the same time on two instances both land).
public struct BrandingChange: Sendable, Equatable {
    public var title: String?
    public var accent: String?
    /// A new logo (type, bytes, version), or `removeLogo`.
    public var logo: (type: String, bytes: [UInt8], version: String)?
    public var removeLogo = false
    /// A prize media slot (`picture-0`) set (type, bytes, version) or, with nil, removed.
    public var media: (slot: String, value: (type: String, bytes: [UInt8], version: String)?)?

    public init(title: String? = nil, accent: String? = nil) {
        self.title = title
        self.accent = accent
    }

    public static func == (a: BrandingChange, b: BrandingChange) -> Bool {
        a.title == b.title && a.accent == b.accent && a.removeLogo == b.removeLogo
            && a.logo?.type == b.logo?.type && a.logo?.bytes == b.logo?.bytes && a.logo?.version == b.logo?.version
            && a.media?.slot == b.media?.slot && a.media?.value?.type == b.media?.value?.type
            && a.media?.value?.bytes == b.media?.value?.bytes && a.media?.value?.version == b.media?.value?.version
    }
}

extension RedisDrawKeys {
    /// The draw's screen branding (a hash; see `BrandingRecord`).
    public var branding: String { "{d:\(code)}:branding" }
    /// The versions of the draw's prize media (a hash: slot → version).
    public var media: String { "{d:\(code)}:media" }
}

/// The branding script. KEYS: branding, media versions. ARGV: channel, code, then field/value
/// pairs (an empty value deletes the field; a field `v:<slot>` is a media version, kept in the
/// second hash). Writes them all, publishes the result, returns {title, accent, logoType,
/// logoVersion, media}: one step, so a change is stored and announced together or not at all.
enum BrandingScripts {
    static let change = """
        for i = 3, #ARGV, 2 do
          local key, field = KEYS[1], ARGV[i]
          if string.sub(field, 1, 2) == 'v:' then key, field = KEYS[2], string.sub(field, 3) end
          if ARGV[i + 1] == '' then
            redis.call('HDEL', key, field)
          else
            redis.call('HSET', key, field, ARGV[i + 1])
          end
        end
        \(readAll)
        redis.call('PUBLISH', ARGV[1], ARGV[2] .. '\\n' .. v[4] .. '\\n' .. v[3] .. '\\n' .. v[2] .. '\\n' .. v[5] .. '\\n' .. v[1])
        return v
        """

    /// Reads {title, accent, logoType, logoVersion, media} as the change script returns them. KEYS: branding, media versions.
    static let read = readAll + "\nreturn v"

    /// Sets `v` to {title, accent, logoType, logoVersion, media} (media: `slot=version,…`, sorted).
    private static let readAll = """
        local v = redis.call('HMGET', KEYS[1], 'title', 'accent', 'logoType', 'logoVersion')
        for i = 1, 4 do v[i] = v[i] or '' end
        local m = redis.call('HGETALL', KEYS[2])
        local parts = {}
        for i = 1, #m, 2 do parts[#parts + 1] = m[i] .. '=' .. m[i + 1] end
        table.sort(parts)
        v[5] = table.concat(parts, ',')
        """
}

/// Branding in Redis for one cluster instance. Loop-confined through its client.
public final class ClusterBrandingStore {
    public let client: RedisClient
    private let changeScript = RedisScript(BrandingScripts.change)
    private let readScript = RedisScript(BrandingScripts.read)

    public init(client: RedisClient) {
        self.client = client
    }

    /// The draw's branding without the logo's or the media's bytes.
    public func read(draw: String, _ completion: @escaping (Result<BrandingRecord, ClusterError>) -> Void) {
        let keys = RedisDrawKeys(code: draw)
        readScript.run(on: client, keys: [keys.branding, keys.media], arguments: []) { result in
            completion(result.mapError(ClusterError.init).flatMap(Self.record))
        }
    }

    /// {title, accent, logoType, logoVersion, media} as both scripts return them.
    private static func record(_ reply: RedisReply) -> Result<BrandingRecord, ClusterError> {
        guard let values = reply.array, values.count == 5 else { return .failure(.unexpectedReply("branding: \(reply)")) }
        let text = values.map { $0.string ?? "" }
        return .success(BrandingRecord(title: text[0], accent: text[1], logoType: text[2], logoVersion: text[3],
                                       media: BrandingRecord.parseMedia(Substring(text[4]))))
    }

    /// One prize media slot's bytes, type and version, or nil when it is empty.
    public func media(draw: String, slot: String, _ completion: @escaping (Result<(type: String, bytes: [UInt8], version: String)?, ClusterError>) -> Void) {
        client.send(["HMGET", RedisDrawKeys(code: draw).branding, "media:\(slot):type", "media:\(slot)", "media:\(slot):version"]) { result in
            completion(result.mapError(ClusterError.init).flatMap { reply in
                guard let values = reply.array, values.count == 3 else { return .failure(.unexpectedReply("media: \(reply)")) }
                guard let type = values[0].string, !type.isEmpty, case .bulk(let bytes) = values[1] else { return .success(nil) }
                return .success((type, bytes, values[2].string ?? ""))
            })
        }
    }

    /// The logo's bytes and type, or nil when the draw has none.
    public func logo(draw: String, _ completion: @escaping (Result<(type: String, bytes: [UInt8], version: String)?, ClusterError>) -> Void) {
        client.send(["HMGET", RedisDrawKeys(code: draw).branding, "logoType", "logo", "logoVersion"]) { result in
            completion(result.mapError(ClusterError.init).flatMap { reply in
                guard let values = reply.array, values.count == 3 else { return .failure(.unexpectedReply("logo: \(reply)")) }
                guard let type = values[0].string, !type.isEmpty, case .bulk(let bytes) = values[1] else { return .success(nil) }
                return .success((type, bytes, values[2].string ?? ""))
            })
        }
    }

    /// Stores `change` and announces the draw's new branding to every instance, in one script.
    public func apply(_ change: BrandingChange, draw: String, _ completion: @escaping (Result<BrandingRecord, ClusterError>) -> Void) {
        var arguments: [[UInt8]] = [Array(BrandingRecord.channel.utf8), Array(draw.utf8)]
        func set(_ field: String, _ value: [UInt8]) { arguments += [Array(field.utf8), value] }
        if let title = change.title { set("title", Array(title.utf8)) }
        if let accent = change.accent { set("accent", Array(accent.utf8)) }
        if let logo = change.logo {
            set("logoType", Array(logo.type.utf8))
            set("logo", logo.bytes)
            set("logoVersion", Array(logo.version.utf8))
        } else if change.removeLogo {
            for field in ["logoType", "logo", "logoVersion"] { set(field, []) }
        }
        if let media = change.media {
            set("media:\(media.slot):type", Array((media.value?.type ?? "").utf8))
            set("media:\(media.slot)", media.value?.bytes ?? [])
            set("media:\(media.slot):version", Array((media.value?.version ?? "").utf8))
            set("v:\(media.slot)", Array((media.value?.version ?? "").utf8))
        }
        let keys = RedisDrawKeys(code: draw)
        changeScript.run(on: client, keys: [keys.branding, keys.media], arguments: arguments) { result in
            completion(result.mapError(ClusterError.init).flatMap(Self.record))
        }
    }
}
