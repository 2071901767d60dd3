import Crypto
import HTTPCore

/// The device token that makes "one entry per device": 128 random bits (base32) in an
/// HttpOnly cookie; the server keeps only `hex(SHA256(token))`.
enum DeviceToken {
    static let cookieName = "tombola_device"
    /// About a year: a phone keeps its token across the evening and the next event.
    static let maxAgeSeconds = 31_536_000

    /// The token a request carries in `Cookie`, if well-formed (26 base32 characters).
    static func token(in headers: HTTPHeaders) -> String? {
        for header in headers.values(for: "Cookie") {
            for part in header.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: " \t") == cookieName else { continue }
                let value = String(pair[1].trimmingCharacters(in: " \t"))
                if isWellFormed(value) { return value }
            }
        }
        return nil
    }

    static func isWellFormed(_ value: String) -> Bool {
        value.utf8.count == 26 && value.utf8.allSatisfy { (0x61...0x7a).contains($0) || (0x32...0x37).contains($0) }
    }

    static func newToken() -> String { DrawKeys.newSecret() }

    static func hash(_ token: String) -> String { SHA256.hexDigest(Array(token.utf8)) }

    /// `Set-Cookie` for a new token; `Secure` when the page was reached over HTTPS.
    static func setCookie(_ token: String, secure: Bool) -> String {
        "\(cookieName)=\(token); Path=/; Max-Age=\(maxAgeSeconds); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var s = self
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return s
    }
}
