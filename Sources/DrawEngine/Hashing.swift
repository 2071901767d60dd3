import CCrypto

/// SHA-256 and HMAC-SHA-256 from libcrypto; the only place DrawEngine calls OpenSSL.
enum Hashing {
    /// SHA-256 (FIPS 180-4) of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = CCrypto.SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }

    /// HMAC-SHA-256 (RFC 2104) of `message` under `key`.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { input in
                digest.withUnsafeMutableBufferPointer { output in
                    _ = CCrypto.HMAC(
                        EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                        input.baseAddress, input.count, output.baseAddress, &length)
                }
            }
        }
        precondition(length == 32, "HMAC-SHA-256 returned \(length) bytes")
        return digest
    }

    static func sha256Hex(_ bytes: [UInt8]) -> String { Hex.encode(sha256(bytes)) }
}
