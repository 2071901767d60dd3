import Crypto
import DrawEngine

/// A prize tier's picture and music on the stage (issue #26, docs/STAGE.md): one slot per tier
/// position and kind (`picture-0`, `music-2`). Presentation only, like the branding: never in
/// the pool, the lock or the chain. Pure checks here; `BrandingStore` (single box) and
/// `ClusterBranding` (Redis) keep them.
struct PrizeMediaSlot: Sendable, Hashable {
    enum Kind: String, Sendable, CaseIterable { case picture, music }

    let tier: Int
    let kind: Kind

    /// `picture-3` / `music-3`: the slot's name in storage and in the `prizes` map of the branding.
    var name: String { "\(kind.rawValue)-\(tier)" }

    /// From a path's `<tier>` and `<kind>`: a tier position 0…99 written in plain digits.
    init?(tier text: String, kind: String) {
        guard let kind = Kind(rawValue: kind), !text.isEmpty, text.count <= 2,
              text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), text == "0" || !text.hasPrefix("0"),
              let tier = Int(text), tier < DrawLimits.maxPrizes else { return nil }
        self.tier = tier
        self.kind = kind
    }

    /// From a stored slot name (`picture-3`).
    init?(name: String) {
        let parts = name.split(separator: "-", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        self.init(tier: String(parts[1]), kind: String(parts[0]))
    }

    /// The media's URL: it names its version, so it may be cached for good.
    func url(code: String, version: String) -> String { "/api/draws/\(code)/prizes/\(tier)/\(kind.rawValue)?v=\(version)" }

    /// The largest upload: a picture as large as a logo (the host page scales photos down
    /// before it sends them); music a few minutes of a compressed file.
    var maxBytes: Int { kind == .picture ? BrandingRules.maxLogoBytes : PrizeMediaRules.maxMusicBytes }
}

enum PrizeMediaRules {
    static let maxMusicBytes = 4 * 1024 * 1024

    /// The media type from the file's first bytes (never from a name or a header), or nil:
    /// pictures as logos (PNG, JPEG, WebP); music MP3 (an ID3 tag or an MPEG audio frame),
    /// Ogg, or MPEG-4 audio (an `ftyp` box of an audio or common MPEG-4 brand).
    static func type(of kind: PrizeMediaSlot.Kind, _ bytes: [UInt8]) -> String? {
        switch kind {
        case .picture: return BrandingRules.imageType(bytes)
        case .music: return audioType(bytes)
        }
    }

    static func audioType(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: Array("ID3".utf8)) { return "audio/mpeg" }
        // An MPEG audio frame header: 11 sync bits, a known version and a layer.
        if bytes.count >= 4, bytes[0] == 0xff, bytes[1] & 0xe0 == 0xe0, bytes[1] & 0x18 != 0x08, bytes[1] & 0x06 != 0 {
            return "audio/mpeg"
        }
        if bytes.starts(with: Array("OggS".utf8)) { return "audio/ogg" }
        let brands = ["M4A ", "M4B ", "mp42", "mp41", "isom", "iso2", "dash"]
        if bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8),
           brands.contains(where: { bytes[8..<12].elementsEqual($0.utf8) }) { return "audio/mp4" }
        return nil
    }

    /// A version that changes with the bytes.
    static func version(_ bytes: [UInt8]) -> String { String(SHA256.hexDigest(bytes).prefix(16)) }
}
