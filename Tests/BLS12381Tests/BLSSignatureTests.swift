import BLS12381
import Testing

/// drand's signature check (docs/FAIRNESS.md §13): RFC 9380's published hash-to-G1 vectors,
/// quicknet's published rounds under its pinned key, rounds of a test key signed by py_ecc (the
/// tests' reference implementation, Tests/peers/drand_relay.py), and forgeries, all refused.
@Suite struct BLSSignatureTests {
    static let quicknetKey = "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a"

    /// quicknet rounds as the League of Entropy's relays serve them (public data; also in
    /// Tests/peers/test_drand_relay.py).
    static let quicknetRounds: [(UInt64, String)] = [
        (1, "b55e7cb2d5c613ee0b2e28d6750aabbb78c39dcc96bd9d38c2c2e12198df95571de8e8e402a0cc48871c7089a2b3af4b"),
        (2, "b6b6a585449b66eb12e875b64fcbab3799861a00e4dbf092d99e969a5eac57dd3f798acf61e705fe4f093db926626807"),
        (1000, "b44679b9a59af2ec876b1a6b1ad52ea9b1615fc3982b19576350f93447cb1125e342b73a8dd2bacbe47e4b6b63ed5e39"),
    ]

    /// The test relay's default key (secret 0x7E57C4A1) and rounds it signed with py_ecc 8.0.0:
    /// `DrandChain(secret=0x7E57C4A1).sign(r)` in Tests/peers/drand_relay.py.
    static let testKey = "b81be4e3f8eb3fdf11f1a8b915cee1d87418d7d595cd4e2cb621555e31f641457ab9b3f79ebd12784a5d0c4ee6c24e3911341b7d91a490601c60ff996f3bda003c785dec967be17b36a4a8bf6c29aad819a925113786e5f658b9ee0fdbb2ab53"
    static let testRounds: [(UInt64, String)] = [
        (1, "99aa9e0a948bf99eddfc7fa1797e8a013f5f4cdd3959a6e95fc8de7108b51c4f342f31fd22360a02720043084e9468cd"),
        (2, "b523ba625d57b44c827b8fa7034bc051457f751889b669162aa0634169c64725e830b14e95af7e96080e519040374943"),
        (3, "83439fcb93c8f6be13d2594d55a3bd0221160039b6c518a479e352165bd1ec651fe2c99c4b2bd4fe4f8cf314806f584f"),
        (1000, "b088aebd03114c7a77a3cd23417b6766aa2b819f07d5d3bbb545809334292ce32a839d688c22f0daffce72733f4878b2"),
        (123_456, "903be369fceeb7b0de862b1302792c90fc898d0fe36f149919bd06b2e6be8bb76af5c70563e5d8d00902752db5bcabce"),
        (9_999_999, "87cd49e4e11fd1ed2e9fe3ba940b2c4b757641449b6158418158cfe0a1377bcc31d6f615ee665993674c305f37ae7b15"),
        (1_099_511_627_783, "acc3060b9101cbc07a98e0607a043a55ef7a311619a0d4789ddcb13c05f51790bdc83008ce50d3a04a5b94ecc6012575"),
    ]

    /// RFC 9380 appendix J.9.1 (suite BLS12381G1_XMD:SHA-256_SSWU_RO_): msg → P.x ‖ P.y.
    static let rfcDST = Array("QUUX-V01-CS02-with-BLS12381G1_XMD:SHA-256_SSWU_RO_".utf8)
    static let rfcVectors: [(String, String)] = [
        ("", "052926add2207b76ca4fa57a8734416c8dc95e24501772c814278700eed6d1e4e8cf62d9c09db0fac349612b759e79a108ba738453bfed09cb546dbb0783dbb3a5f1f566ed67bb6be0e8c67e2e81a4cc68ee29813bb7994998f3eae0c9c6a265"),
        ("abc", "03567bc5ef9c690c2ab2ecdf6a96ef1c139cc0b2f284dca0a9a7943388a49a3aee664ba5379a7655d3c68900be2f69030b9c15f3fe6e5cf4211f346271d7b01c8f3b28be689c8429c85b67af215533311f0b8dfaaa154fa6b88176c229f2885d"),
        ("abcdef0123456789", "11e0b079dea29a68f0383ee94fed1b940995272407e3bb916bbf268c263ddd57a6a27200a784cbc248e84f357ce82d9803a87ae2caf14e8ee52e51fa2ed8eefe80f02457004ba4d486d6aa1f517c0889501dc7413753f9599b099ebcbbd2d709"),
        ("q128_" + String(repeating: "q", count: 128), "15f68eaa693b95ccb85215dc65fa81038d69629f70aeee0d0f677cf22285e7bf58d7cb86eefe8f2e9bc3f8cb84fac4881807a1d50c29f430b8cafc4f8638dfeeadf51211e1602a5f184443076715f91bb90a48ba1e370edce6ae1062f5e6dd38"),
        ("a512_" + String(repeating: "a", count: 512), "082aabae8b7dedb0e78aeb619ad3bfd9277a2f77ba7fad20ef6aabdc6c31d19ba5a6d12283553294c1825c4b3ca2dcfe05b84ae5a942248eea39e1d91030458c40153f3b654ab7872d779ad1e942856a20c438e8d99bc8abfbf74729ce1f7ac8"),
    ]

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

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

    @Test func expandMessageMatchesRFC9380() {
        // RFC 9380 K.1 (expand_message_xmd, SHA-256), msg "" and "abc", len_in_bytes 0x20.
        let dst = Array("QUUX-V01-CS02-with-expander-SHA256-128".utf8)
        #expect(Self.hex(HashToG1.expandMessageXMD([], dst: dst, length: 32))
            == "68a985b87eb6b46952128911f2a4412bbc302a9d759667f87f7a21d803f07235")
        #expect(Self.hex(HashToG1.expandMessageXMD(Array("abc".utf8), dst: dst, length: 32))
            == "d8ccab23b5985ccea865c6c97b6e5b8350e794e603b4b97902f53a8a0d605615")
    }

    @Test func hashToG1MatchesRFC9380() {
        for (message, expected) in Self.rfcVectors {
            let point = HashToG1.hashAffine(Array(message.utf8), dst: Self.rfcDST)
            #expect(point.map { Self.hex($0.x + $0.y) } == expected, "msg \(message.prefix(8))")
        }
    }

    @Test func quicknetPublishedRoundsVerify() {
        let key = BLSSignature.PublicKey(Self.bytes(Self.quicknetKey))
        #expect(key != nil)
        guard let key else { return }
        for (round, signature) in Self.quicknetRounds {
            #expect(BLSSignature.verifyDrand(round: round, signature: Self.bytes(signature), publicKey: key), "round \(round)")
        }
        // Another round's signature, and round 1000's under round 1001.
        #expect(!BLSSignature.verifyDrand(round: 2, signature: Self.bytes(Self.quicknetRounds[0].1), publicKey: key))
        #expect(!BLSSignature.verifyDrand(round: 1001, signature: Self.bytes(Self.quicknetRounds[2].1), publicKey: key))
    }

    @Test func testKeyRoundsSignedByPyEccVerifyBothWays() {
        // Swift verifies py_ecc's signatures, and signs the same bytes itself with the same secret.
        #expect(Self.hex(BLSTestSigner.publicKey(secret: [0x7E57_C4A1])) == Self.testKey)
        let key = BLSSignature.PublicKey(Self.bytes(Self.testKey))!
        for (round, signature) in Self.testRounds {
            #expect(BLSSignature.verifyDrand(round: round, signature: Self.bytes(signature), publicKey: key), "round \(round)")
        }
        for (round, signature) in Self.testRounds.prefix(2) {
            #expect(Self.hex(BLSTestSigner.signDrand(round: round, secret: [0x7E57_C4A1])) == signature)
        }
        // A test-key signature is not quicknet's.
        let quicknet = BLSSignature.PublicKey(Self.bytes(Self.quicknetKey))!
        #expect(!BLSSignature.verifyDrand(round: 1000, signature: Self.bytes(Self.testRounds[3].1), publicKey: quicknet))
    }

    @Test func forgeriesAreRefused() {
        let key = BLSSignature.PublicKey(Self.bytes(Self.quicknetKey))!
        let good = Self.bytes(Self.quicknetRounds[2].1)
        // Round 1000's signature with one bit flipped, for 55 bits spread over its 48 bytes.
        for bit in stride(from: 0, to: 48 * 8, by: 7) {
            var forged = good
            forged[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(!BLSSignature.verifyDrand(round: 1000, signature: forged, publicKey: key), "bit \(bit)")
        }
        // The other root (sign flag flipped), infinity, uncompressed flag, x ≥ p, bad lengths.
        var negated = good
        negated[0] ^= 0x20
        #expect(!BLSSignature.verifyDrand(round: 1000, signature: negated, publicKey: key))
        #expect(!BLSSignature.verifyDrand(round: 1000, signature: [0xc0] + [UInt8](repeating: 0, count: 47), publicKey: key))
        var uncompressed = good
        uncompressed[0] &= 0x7f
        #expect(!BLSSignature.verifyDrand(round: 1000, signature: uncompressed, publicKey: key))
        #expect(!BLSSignature.verifyDrand(round: 1000, signature: [0x9f] + [UInt8](repeating: 0xff, count: 47), publicKey: key))
        #expect(!BLSSignature.verifyDrand(round: 1000, signature: Array(good.dropLast()), publicKey: key))
        #expect(!BLSSignature.verifyDrand(round: 1000, signature: good + [0], publicKey: key))
        // x with no point on the curve; a point on the curve outside G1's subgroup.
        #expect(!BLSSignature.verifyDrand(round: 1000, signature: BLSTestSigner.xOffCurve(), publicKey: key))
        #expect(!BLSSignature.verifyDrand(round: 1000, signature: BLSTestSigner.pointOutsideSubgroup(), publicKey: key))
        // The hex form refuses what is not hex.
        #expect(!BLSSignature.verifyDrand(round: 1000, signatureHex: "zz" + Self.quicknetRounds[2].1.dropFirst(2), publicKeyHex: Self.quicknetKey))
        #expect(BLSSignature.verifyDrand(round: 1000, signatureHex: Self.quicknetRounds[2].1, publicKeyHex: Self.quicknetKey))
    }

    @Test func badPublicKeysAreRefused() {
        var key = Self.bytes(Self.quicknetKey)
        #expect(BLSSignature.PublicKey(key) != nil)
        #expect(BLSSignature.PublicKey([0xc0] + [UInt8](repeating: 0, count: 95)) == nil)   // infinity
        #expect(BLSSignature.PublicKey(Array(key.dropLast())) == nil)
        key[95] ^= 1
        // A changed key either decodes to no subgroup point or fails to verify round 1000.
        if let other = BLSSignature.PublicKey(key) {
            #expect(!BLSSignature.verifyDrand(round: 1000, signature: Self.bytes(Self.quicknetRounds[2].1), publicKey: other))
        }
    }
}
