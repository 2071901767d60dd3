import Crypto
import Testing

/// Published vectors: FIPS 180-2 appendix examples (SHA-1, SHA-256), RFC 4231 (HMAC-SHA-256).
@Suite struct DigestTests {
    static let twoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (twoBlocks, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func sha1MatchesFIPS180Examples(_ message: String, _ digest: String) {
        #expect(lowercaseHex(SHA1.hash(Array(message.utf8))) == digest)
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (twoBlocks, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256MatchesFIPS180Examples(_ message: String, _ digest: String) {
        #expect(SHA256.hexDigest(Array(message.utf8)) == digest)
        #expect(SHA256.hash(Array(message.utf8)).count == SHA256.byteCount)
    }

    @Test func sha256OfAMillionAs() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hexDigest(message) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: [
        // RFC 4231 §4.2, §4.3, §4.4, §4.7 (a key longer than the block is hashed first).
        ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        ([UInt8](repeating: 0xaa, count: 131),
         Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ])
    func hmacSHA256MatchesRFC4231(_ key: [UInt8], _ message: [UInt8], _ code: String) {
        #expect(lowercaseHex(HMACSHA256.authenticationCode(key: key, message: message)) == code)
    }

    @Test func randomBytesHaveTheAskedLengthAndDiffer() {
        #expect(SecureRandom.bytes(count: 0).isEmpty)
        let first = SecureRandom.bytes(count: 32)
        let second = SecureRandom.bytes(count: 32)
        #expect(first.count == 32)
        // Two equal 256-bit draws would mean the generator is broken (chance 2^-256).
        #expect(first != second)
    }
}
