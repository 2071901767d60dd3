/// Compressed points as drand, ZCash and the IETF BLS draft encode them: x big-endian, the top
/// three bits of the first byte flags (compressed, infinity, y is the larger root). Decoding
/// refuses the uncompressed form, infinity (no drand key or signature is), x ≥ p, x with no point
/// on the curve, and points outside the prime-order subgroup.
enum PointEncoding {
    static let compressedFlag: UInt8 = 0x80
    static let infinityFlag: UInt8 = 0x40
    static let signFlag: UInt8 = 0x20

    /// A G1 point (a signature) from 48 bytes.
    static func g1(_ bytes: [UInt8]) -> G1Point? {
        guard bytes.count == 48, let flags = bytes.first, flags & compressedFlag != 0, flags & infinityFlag == 0 else { return nil }
        var raw = bytes
        raw[0] &= 0x1f
        guard let x = Fp(bigEndian: raw[...]) else { return nil }
        guard var y = (x.squared * x + Curve.g1B).squareRoot else { return nil }
        if y.isLexicographicallyLargest != (flags & signFlag != 0) { y = -y }
        let point = G1Point(affineX: x, affineY: y)
        return point.isInPrimeOrderSubgroup ? point : nil
    }

    /// A G2 point (a public key) from 96 bytes: x.c1 then x.c0.
    static func g2(_ bytes: [UInt8]) -> G2Point? {
        guard bytes.count == 96, let flags = bytes.first, flags & compressedFlag != 0, flags & infinityFlag == 0 else { return nil }
        var raw = bytes
        raw[0] &= 0x1f
        guard let c1 = Fp(bigEndian: raw[0..<48]), let c0 = Fp(bigEndian: raw[48..<96]) else { return nil }
        let x = Fp2(c0: c0, c1: c1)
        guard var y = (x.squared * x + Curve.g2B).squareRoot else { return nil }
        if y.isLexicographicallyLargest != (flags & signFlag != 0) { y = -y }
        let point = G2Point(affineX: x, affineY: y)
        return point.isInPrimeOrderSubgroup ? point : nil
    }

    /// 48 bytes of a G1 point (tests; infinity as the flag byte and zeros).
    static func encode(_ point: G1Point) -> [UInt8] {
        guard let (x, y) = point.affine else { return [compressedFlag | infinityFlag] + [UInt8](repeating: 0, count: 47) }
        var bytes = x.bigEndian
        bytes[0] |= compressedFlag | (y.isLexicographicallyLargest ? signFlag : 0)
        return bytes
    }

    /// 96 bytes of a G2 point (tests).
    static func encode(_ point: G2Point) -> [UInt8] {
        guard let (x, y) = point.affine else { return [compressedFlag | infinityFlag] + [UInt8](repeating: 0, count: 95) }
        var bytes = x.c1.bigEndian + x.c0.bigEndian
        bytes[0] |= compressedFlag | (y.isLexicographicallyLargest ? signFlag : 0)
        return bytes
    }
}
