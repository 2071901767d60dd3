import DrawRoomCore
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

    /// A join's `Idempotency-Key` header (docs/PROTOCOL.md "Check-in"): nil when absent; a key
    /// that is not 16–64 of `A–Z a–z 0–9 - _`, or sent twice, is `bad_idempotency_key`.
    static func joinKey(in headers: HTTPHeaders) throws(CommandFailure) -> String? {
        let values = headers.values(for: "Idempotency-Key")
        guard let value = values.first else { return nil }
        let allowed = value.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a) || $0 == 0x2d || $0 == 0x5f }
        guard values.count == 1, (16...64).contains(value.utf8.count), allowed else { throw CommandFailure(code: "bad_idempotency_key") }
        return value
    }

    /// The device token a phone without a cookie gets for a join sent with `key`: the same key
    /// always gives the same token, so a retry whose first answer was lost finds its entry again
    /// (`already_joined`) and gets that entry's cookie back.
    static func token(forJoinKey key: String) -> String {
        DrawKeys.base32(Array(SHA256.hash(Array(("tombola join key\u{0}" + key).utf8)).prefix(16)))
    }

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
