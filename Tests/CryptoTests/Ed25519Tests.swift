import Crypto
import Testing

/// RFC 8032 §7.1 tests 1 and 2 (the key, its public key, the signature), and refusals: a flipped
/// bit anywhere (message, signature, key), another key, malformed lengths.
@Suite struct Ed25519Tests {
    static func bytes(_ hex: String) -> [UInt8] {
        var out = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    static let vectors: [(seed: String, publicKey: String, message: String, signature: String)] = [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ]

    @Test func rfc8032VectorsSignAndVerify() throws {
        for vector in Self.vectors {
            let key = try #require(Ed25519PrivateKey(seed: Self.bytes(vector.seed)))
            #expect(lowercaseHex(key.publicKey) == vector.publicKey)
            let signature = key.sign(Self.bytes(vector.message))
            #expect(lowercaseHex(signature) == vector.signature)
            #expect(Ed25519.verify(publicKey: key.publicKey, message: Self.bytes(vector.message), signature: signature))
        }
    }

    @Test func aFlippedBitAnotherKeyOrABadLengthIsRefused() throws {
        let key = Ed25519PrivateKey.generate()
        let other = Ed25519PrivateKey.generate()
        let message = Array("tombola-record-v1:DRAW:\(String(repeating: "ab", count: 32))".utf8)
        let signature = key.sign(message)
        #expect(Ed25519.verify(publicKey: key.publicKey, message: message, signature: signature))
        for bit in stride(from: 0, to: signature.count * 8, by: 37) {
            var flipped = signature
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(!Ed25519.verify(publicKey: key.publicKey, message: message, signature: flipped), "signature bit \(bit)")
        }
        for bit in stride(from: 0, to: message.count * 8, by: 29) {
            var flipped = message
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(!Ed25519.verify(publicKey: key.publicKey, message: flipped, signature: signature), "message bit \(bit)")
        }
        var flippedKey = key.publicKey
        flippedKey[5] ^= 0x10
        #expect(!Ed25519.verify(publicKey: flippedKey, message: message, signature: signature))
        #expect(!Ed25519.verify(publicKey: other.publicKey, message: message, signature: signature))
        #expect(!Ed25519.verify(publicKey: key.publicKey, message: message, signature: Array(signature.dropLast())))
        #expect(!Ed25519.verify(publicKey: Array(key.publicKey.dropLast()), message: message, signature: signature))
        #expect(Ed25519PrivateKey(seed: [UInt8](repeating: 1, count: 31)) == nil)
        // Deterministic: one key, one message, one signature.
        #expect(key.sign(message) == signature)
    }
}

/// RFC 3161 requests are DER that OpenSSL reads back (the nonce's INTEGER minimal for every
/// nonce: a TSA refuses a padded one), and an answer that is not one is refused.
@Suite struct TimeStampRequestTests {
    @Test func requestsAreMinimalDERForAnyNonce() {
        let digest = SHA256.hash(Array("record".utf8))
        for nonce: UInt64 in [0, 1, 0x7f, 0x80, 0xff, 0x0100, 0x00ff_ffff_ffff_ffff, 0x8000_0000_0000_0000, .max] {
            let request = TimeStamp.request(digest: digest, nonce: nonce)
            #expect(request[1] == UInt8(request.count - 2))
            // The nonce INTEGER: 02 len bytes, minimal.
            let at = 2 + 3 + 51
            #expect(request[at] == 0x02)
            let length = Int(request[at + 1])
            let value = Array(request[(at + 2)..<(at + 2 + length)])
            #expect(length == 1 || !(value[0] == 0 && value[1] & 0x80 == 0), "nonce \(nonce): \(value)")
            #expect(value[0] & 0x80 == 0, "nonce \(nonce) must stay positive")
            #expect(Array(request.suffix(3)) == [0x01, 0x01, 0xff])
        }
        #expect(TimeStamp.inspect(response: [0x30, 0x03, 0x02, 0x01, 0x00]) == nil)
        #expect(TimeStamp.inspect(response: []) == nil)
    }
}
