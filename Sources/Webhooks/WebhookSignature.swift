import Crypto

/// The signature a receiver checks (issue 43, item 4): header `Tombola-Signature:
/// t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. The timestamp is signed with the
/// body, so a captured delivery replayed later fails the receiver's freshness check
/// (`tolerance`), and one replayed with a new timestamp fails the MAC.
public enum WebhookSignature {
    public static let header = "Tombola-Signature"
    /// How far a delivery's timestamp may be from the receiver's clock (5 minutes).
    public static let defaultTolerance: Int64 = 300

    public static func value(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        "t=\(timestamp),v1=" + mac(secret: secret, timestamp: timestamp, body: body)
    }

    static func mac(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        lowercaseHex(HMACSHA256.authenticationCode(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body))
    }

    /// Whether `header` signs `body` with `secret` at a time within `tolerance` seconds of `now`
    /// (what a receiver does; the tests use it). Compares in constant time.
    public static func verify(_ header: String, secret: String, body: [UInt8], now: Int64,
                              tolerance: Int64 = defaultTolerance) -> Bool {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return false }
            if pair[0] == "t" { timestamp = Int64(pair[1]) } else if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp, abs(now - timestamp) <= tolerance else { return false }
        let expected = Array(mac(secret: secret, timestamp: timestamp, body: body).utf8)
        return signatures.contains { candidate in
            let given = Array(candidate.utf8)
            guard given.count == expected.count else { return false }
            return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }
}
