import DrawRoomCore
import Crypto
import Server

/// Public draw codes and secret keys: how they are made, stored (as SHA-256 only) and checked.
enum DrawKeys {
    /// No 0/O, 1/I/L: a code read off a projector is typed right the first time.
    static let codeAlphabet = DrawCodes.alphabet
    static let codeLength = 6
    /// RFC 4648 base32, lower case, no padding: 26 characters carry 128 bits.
    private static let base32 = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// A fresh public code (6 characters, ~30 bits), uniform over the alphabet.
    static func newCode() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(decoding: (0..<codeLength).map { _ in codeAlphabet.randomElement(using: &generator)! }, as: UTF8.self)
    }

    /// A fresh 128-bit secret from the OS CSPRNG, base32 (26 characters).
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        var bits = [UInt8]()
        for _ in 0..<2 {
            let word = generator.next() as UInt64
            for shift in stride(from: 56, through: 0, by: -8) { bits.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return base32(bits)
    }

    /// `bytes` in lower-case base32 without padding (16 bytes: 26 characters).
    static func base32(_ bits: [UInt8]) -> String {
        var out = [UInt8]()
        var buffer = 0, count = 0
        for byte in bits {
            buffer = buffer << 8 | Int(byte)
            count += 8
            while count >= 5 {
                out.append(base32[(buffer >> (count - 5)) & 31])
                count -= 5
            }
        }
        if count > 0 { out.append(base32[(buffer << (5 - count)) & 31]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Codes given by an operator (`--default-draw`) or a page: 1–64 of `A–Z a–z 0–9 - _`.
    static func isValidCode(_ text: String) -> Bool {
        PageRoutes.isDrawCode(text)
    }

    /// Keys are 1–256 printable ASCII characters (a pasted key with a stray space still fails cleanly).
    static func isPlausibleKey(_ text: String) -> Bool {
        (1...256).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7e).contains($0) }
    }

    /// What is stored: `hex(SHA256(key))`.
    static func hash(_ key: String) -> String {
        sha256Hex(Array(key.utf8))
    }

    static func sha256Hex(_ bytes: [UInt8]) -> String { SHA256.hexDigest(bytes) }

    /// Whether `key` hashes to `storedHash`, comparing the digests in constant time.
    static func matches(_ key: String, storedHash: String) -> Bool {
        let candidate = Array(hash(key).utf8)
        let stored = Array(storedHash.utf8)
        guard candidate.count == stored.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<candidate.count { difference |= candidate[index] ^ stored[index] }
        return difference == 0
    }
}
