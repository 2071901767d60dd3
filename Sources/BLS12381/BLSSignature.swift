import Crypto

/// BLS signatures with signatures on G1 and public keys on G2 ("min-sig"), as drand's
/// `bls-unchained-g1-rfc9380` scheme (quicknet) uses them: a signature σ of message m under the
/// public key pk checks when e(σ, g2) = e(H(m), pk), H being RFC 9380's hash to G1.
public enum BLSSignature {
    /// drand's domain separation tag for G1 signatures (docs/FAIRNESS.md §13).
    public static let drandDST = Array("BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_".utf8)

    /// A public key checked once (on the curve, in G2's subgroup, not infinity), for many checks.
    public struct PublicKey: Sendable {
        let point: G2Point
        /// The Miller loop's lines of the key, computed once.
        let lines: G2Lines

        /// nil when the 96 bytes are not a compressed G2 point of the prime-order subgroup.
        public init?(_ bytes: [UInt8]) {
            guard let point = PointEncoding.g2(bytes), let lines = G2Lines(point) else { return nil }
            self.point = point
            self.lines = lines
        }
    }

    /// Does `signature` (48 compressed bytes) sign `message` under `publicKey`? False for any
    /// signature that is not a G1 point of the subgroup, or infinity.
    public static func verify(signature: [UInt8], message: [UInt8], publicKey: PublicKey, dst: [UInt8] = drandDST) -> Bool {
        guard let sigma = PointEncoding.g1(signature) else { return false }
        let hashed = HashToG1.hash(message, dst: dst)
        guard !hashed.isInfinity else { return false }
        // e(σ, −g2) · e(H(m), pk) = 1.
        return Pairing.productIsOne([(sigma, G2Lines.negatedGenerator), (hashed, publicKey.lines)])
    }

    /// A drand round's check: the message is SHA-256(round as 8 big-endian bytes).
    public static func verifyDrand(round: UInt64, signature: [UInt8], publicKey: PublicKey) -> Bool {
        let roundBytes = (0..<8).reversed().map { UInt8(truncatingIfNeeded: round >> UInt64(8 * $0)) }
        return verify(signature: signature, message: SHA256.hash(roundBytes), publicKey: publicKey)
    }

    /// The same from hex (a chain's pinned key, a relay's signature); false when either is not hex.
    public static func verifyDrand(round: UInt64, signatureHex: String, publicKeyHex: String) -> Bool {
        guard let signature = bytes(hex: signatureHex), let key = bytes(hex: publicKeyHex).flatMap(PublicKey.init) else { return false }
        return verifyDrand(round: round, signature: signature, publicKey: key)
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let high = nibble(digits[i]), let low = nibble(digits[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
            i += 2
        }
        return bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Test hooks: signing with a secret scalar (tests only make vectors with it; never a real key).
public enum BLSTestSigner {
    /// sk·g2, compressed.
    public static func publicKey(secret: [UInt64]) -> [UInt8] {
        PointEncoding.encode(Curve.g2Generator.times(secret))
    }

    /// sk·H(SHA-256(u64be(round))), compressed.
    public static func signDrand(round: UInt64, secret: [UInt64]) -> [UInt8] {
        let roundBytes = (0..<8).reversed().map { UInt8(truncatingIfNeeded: round >> UInt64(8 * $0)) }
        return PointEncoding.encode(HashToG1.hash(SHA256.hash(roundBytes), dst: BLSSignature.drandDST).times(secret))
    }

    /// Any 48-byte x that is on the curve with its point outside G1's subgroup (a forgery's shape).
    public static func pointOutsideSubgroup() -> [UInt8] {
        var x = Fp(1)
        while true {
            if let y = (x.squared * x + Curve.g1B).squareRoot {
                let point = G1Point(affineX: x, affineY: y)
                if !point.isInPrimeOrderSubgroup { return PointEncoding.encode(point) }
            }
            x = x + .one
        }
    }

    /// A 48-byte x with no point on the curve.
    public static func xOffCurve() -> [UInt8] {
        var x = Fp(1)
        while (x.squared * x + Curve.g1B).squareRoot != nil { x = x + .one }
        var bytes = x.bigEndian
        bytes[0] |= PointEncoding.compressedFlag
        return bytes
    }
}
