import Crypto

/// The digests the fairness derivation names (docs/FAIRNESS.md), from `Crypto`.
enum Hashing {
    /// SHA-256 (FIPS 180-4) of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] { SHA256.hash(bytes) }

    /// HMAC-SHA-256 (RFC 2104) of `message` under `key`.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(key: key, message: message)
    }

    static func sha256Hex(_ bytes: [UInt8]) -> String { Hex.encode(sha256(bytes)) }
}
