import DrawEngine

/// What a screen's branding may hold (docs/SECURITY.md §7b): pure checks, so the fuzz target
/// (`json`, `-D APP_BRANDING`) runs them on arbitrary input.
enum BrandingRules {
    static let maxTitleLength = 100
    /// A logo is drawn at most a few hundred pixels tall; 256 KiB is plenty for that.
    static let maxLogoBytes = 256 * 1024

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
