/// A draw's screen branding as cluster mode keeps it in Redis (`{d:CODE}:branding`, a hash:
/// `title`, `accent`, `logoType`, `logo` (the image's bytes), `logoVersion`), shared by every
/// instance. Changes go through one script that writes them and announces the draw's new
/// branding (without the logo's bytes) on `tombola:branding`, which every instance hears.
public struct BrandingRecord: Sendable, Equatable {
    public var title = ""
    public var accent = ""
    public var logoType = ""
    public var logoVersion = ""

    public init(title: String = "", accent: String = "", logoType: String = "", logoVersion: String = "") {
        self.title = title
        self.accent = accent
        self.logoType = logoType
        self.logoVersion = logoVersion
    }

    /// The one channel on which every instance hears branding changes (rare: a host's edit).
    public static let channel = "tombola:branding"

    /// `CODE\nlogoVersion\nlogoType\naccent\ntitle` as the script publishes it (the title,
    /// which may hold anything, last). Returns the code and the record.
    public static func parseAnnouncement(_ payload: [UInt8]) -> (code: String, record: BrandingRecord)? {
        let parts = String(decoding: payload, as: UTF8.self).split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count == 5, !parts[0].isEmpty else { return nil }
        return (String(parts[0]), BrandingRecord(title: String(parts[4]), accent: String(parts[3]),
                                                 logoType: String(parts[2]), logoVersion: String(parts[1])))
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

    public init(title: String? = nil, accent: String? = nil) {
        self.title = title
        self.accent = accent
    }

    public static func == (a: BrandingChange, b: BrandingChange) -> Bool {
        a.title == b.title && a.accent == b.accent && a.removeLogo == b.removeLogo
            && a.logo?.type == b.logo?.type && a.logo?.bytes == b.logo?.bytes && a.logo?.version == b.logo?.version
    }
}

extension RedisDrawKeys {
    /// The draw's screen branding (a hash; see `BrandingRecord`).
    public var branding: String { "{d:\(code)}:branding" }
}

/// The branding script. KEYS: branding. ARGV: channel, code, then field/value pairs (an empty
/// value deletes the field). Writes them all, publishes the result, returns
/// {title, accent, logoType, logoVersion}: one step, so a change is stored and announced
/// together or not at all.
enum BrandingScripts {
    static let change = """
        for i = 3, #ARGV, 2 do
          if ARGV[i + 1] == '' then
            redis.call('HDEL', KEYS[1], ARGV[i])
          else
            redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
          end
        end
        local v = redis.call('HMGET', KEYS[1], 'title', 'accent', 'logoType', 'logoVersion')
        for i = 1, 4 do v[i] = v[i] or '' end
        redis.call('PUBLISH', ARGV[1], ARGV[2] .. '\\n' .. v[4] .. '\\n' .. v[3] .. '\\n' .. v[2] .. '\\n' .. v[1])
        return v
        """
}

/// Branding in Redis for one cluster instance. Loop-confined through its client.
public final class ClusterBrandingStore {
    public let client: RedisClient
    private let changeScript = RedisScript(BrandingScripts.change)

    public init(client: RedisClient) {
        self.client = client
    }

    /// The draw's branding without the logo's bytes.
    public func read(draw: String, _ completion: @escaping (Result<BrandingRecord, ClusterError>) -> Void) {
        client.send(["HMGET", RedisDrawKeys(code: draw).branding, "title", "accent", "logoType", "logoVersion"]) { result in
            completion(result.mapError(ClusterError.init).flatMap { reply in
                guard let values = reply.array, values.count == 4 else { return .failure(.unexpectedReply("branding: \(reply)")) }
                let text = values.map { $0.string ?? "" }
                return .success(BrandingRecord(title: text[0], accent: text[1], logoType: text[2], logoVersion: text[3]))
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
        changeScript.run(on: client, keys: [RedisDrawKeys(code: draw).branding], arguments: arguments) { result in
            completion(result.mapError(ClusterError.init).flatMap { reply in
                guard let values = reply.array, values.count == 4 else { return .failure(.unexpectedReply("branding: \(reply)")) }
                let text = values.map { $0.string ?? "" }
                return .success(BrandingRecord(title: text[0], accent: text[1], logoType: text[2], logoVersion: text[3]))
            })
        }
    }
}
