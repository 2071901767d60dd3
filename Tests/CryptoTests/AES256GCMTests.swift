import Crypto
import Testing

/// Test cases 13–16 of McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", the
/// AES-256 vectors NIST's GCM specification (SP 800-38D) was validated with.
@Suite struct AES256GCMTests {
    struct Vector: Sendable, CustomStringConvertible {
        var name: String
        var key: String
        var nonce: String
        var plaintext: String
        var additionalData: String
        var ciphertext: String
        var tag: String
        var description: String { name }
    }

    static let feffe = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
    static let plaintext64 = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
        + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
    static let vectors: [Vector] = [
        Vector(name: "test case 13", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
               plaintext: "", additionalData: "", ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        Vector(name: "test case 14", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
               plaintext: String(repeating: "00", count: 16), additionalData: "",
               ciphertext: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        Vector(name: "test case 15", key: feffe, nonce: "cafebabefacedbaddecaf888", plaintext: plaintext64, additionalData: "",
               ciphertext: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
                   + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
               tag: "b094dac5d93471bdec1a502270e3cc6c"),
        Vector(name: "test case 16", key: feffe, nonce: "cafebabefacedbaddecaf888", plaintext: String(plaintext64.dropLast(8)),
               additionalData: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
               ciphertext: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
                   + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
               tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    @Test(arguments: vectors)
    func sealsAndOpensThePublishedVector(_ vector: Vector) throws {
        let key = bytes(vector.key), nonce = bytes(vector.nonce), aad = bytes(vector.additionalData)
        let box = try AES256GCM.seal(bytes(vector.plaintext), key: key, nonce: nonce, additionalData: aad)
        #expect(lowercaseHex(box.ciphertext) == vector.ciphertext)
        #expect(lowercaseHex(box.tag) == vector.tag)
        let opened = try AES256GCM.open(
            AES256GCM.SealedBox(ciphertext: bytes(vector.ciphertext), tag: bytes(vector.tag)),
            key: key, nonce: nonce, additionalData: aad)
        #expect(lowercaseHex(opened) == vector.plaintext)
    }

    @Test func refusesATamperedCiphertextTagOrAdditionalData() throws {
        let vector = Self.vectors[3]
        let key = bytes(vector.key), nonce = bytes(vector.nonce), aad = bytes(vector.additionalData)
        let box = AES256GCM.SealedBox(ciphertext: bytes(vector.ciphertext), tag: bytes(vector.tag))
        var flippedText = box
        flippedText.ciphertext[0] ^= 1
        var flippedTag = box
        flippedTag.tag[15] ^= 0x80
        #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open(flippedText, key: key, nonce: nonce, additionalData: aad) }
        #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open(flippedTag, key: key, nonce: nonce, additionalData: aad) }
        #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open(box, key: key, nonce: nonce, additionalData: []) }
        var otherKey = key
        otherKey[31] ^= 1
        #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open(box, key: otherKey, nonce: nonce, additionalData: aad) }
        let shortTag = AES256GCM.SealedBox(ciphertext: box.ciphertext, tag: Array(box.tag.prefix(12)))
        #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open(shortTag, key: key, nonce: nonce, additionalData: aad) }
    }

    @Test func refusesKeysAndNoncesOfTheWrongSize() {
        #expect(throws: CryptoError.invalidKeySize) { try AES256GCM.seal([1], key: [UInt8](repeating: 0, count: 16), nonce: [UInt8](repeating: 0, count: 12)) }
        #expect(throws: CryptoError.invalidNonceSize) { try AES256GCM.seal([1], key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 8)) }
    }

    @Test func roundTripsARandomMessageUnderARandomKey() throws {
        let key = SecureRandom.bytes(count: 32), nonce = SecureRandom.bytes(count: 12)
        let message = Array("一等奖 goes to ticket 42".utf8)
        let box = try AES256GCM.seal(message, key: key, nonce: nonce, additionalData: [7])
        #expect(box.ciphertext != message)
        #expect(try AES256GCM.open(box, key: key, nonce: nonce, additionalData: [7]) == message)
    }

    private func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }
}
