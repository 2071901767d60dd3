import Glibc
import CCrypto

/// SHA-1 (FIPS 180-4). Only for protocols that name it (RFC 6455 §4.2.2), never for secrets.
public enum SHA1 {
    public static let byteCount = 20

    /// Fetched once from the default provider: `SHA1()` looks the algorithm up again on every
    /// call, which cost more than the digest of a WebSocket key itself. A fetched `EVP_MD` is
    /// immutable and may be used from any thread.
    nonisolated(unsafe) private static let algorithm = EVP_MD_fetch(nil, "SHA1", nil)

    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                if let algorithm, EVP_Digest(input.baseAddress, input.count, output.baseAddress, nil, algorithm, nil) == 1 { return }
                _ = CCrypto.SHA1(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }
}

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    public static let byteCount = 32

    /// Fetched once, as for SHA-1: `SHA256()` fetches the algorithm on every call, which made a
    /// 100,000-entry tree (200,000 short digests) cost about twice its hashing.
    nonisolated(unsafe) private static let algorithm = EVP_MD_fetch(nil, "SHA256", nil)

    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                if let algorithm, EVP_Digest(input.baseAddress, input.count, output.baseAddress, nil, algorithm, nil) == 1 { return }
                _ = CCrypto.SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }

    /// The digest as 64 lower-case hex digits.
    public static func hexDigest(_ bytes: [UInt8]) -> String {
        lowercaseHex(hash(bytes))
    }

    /// The digest of the file at `path` as 64 lower-case hex digits, read 1 MiB at a time
    /// (the running binary: `/proc/self/exe`); nil when it cannot be read.
    public static func fileHexDigest(path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard let algorithm, EVP_DigestInit_ex(context, algorithm, nil) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 { if errno == EINTR { continue } else { return nil } }
            if count == 0 { break }
            guard buffer.withUnsafeBytes({ EVP_DigestUpdate(context, $0.baseAddress, count) }) == 1 else { return nil }
        }
        var digest = [UInt8](repeating: 0, count: byteCount)
        guard EVP_DigestFinal_ex(context, &digest, nil) == 1 else { return nil }
        return lowercaseHex(digest)
    }
}

/// HMAC (RFC 2104) over SHA-256.
public enum HMACSHA256 {
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length: UInt32 = 0
        key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { input in
                digest.withUnsafeMutableBufferPointer { output in
                    _ = CCrypto.HMAC(
                        EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                        input.baseAddress, input.count, output.baseAddress, &length)
                }
            }
        }
        precondition(length == UInt32(SHA256.byteCount), "HMAC-SHA-256 returned \(length) bytes")
        return digest
    }
}

/// Lower-case hex, two digits a byte.
public func lowercaseHex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 15)])
    }
    return String(decoding: out, as: UTF8.self)
}
