/// What the curve arithmetic needs of a field (Fp for G1, Fp2 for G2).
protocol CurveField: Equatable, Sendable {
    static var zero: Self { get }
    static var one: Self { get }
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, b: Self) -> Self
    static prefix func - (a: Self) -> Self
    var squared: Self { get }
    var doubled: Self { get }
    var inverse: Self { get }
    var isZero: Bool { get }
}

extension Fp: CurveField {}
extension Fp2: CurveField {}

/// A point of y² = x³ + b in Jacobian coordinates (x = X/Z², y = Y/Z³; Z = 0 is infinity).
/// G1: b = 4 over Fp. G2 (the twist): b = 4(1 + u) over Fp2.
struct JacobianPoint<F: CurveField>: Sendable {
    var x: F
    var y: F
    var z: F

    static var infinity: JacobianPoint { JacobianPoint(x: .one, y: .one, z: .zero) }

    init(x: F, y: F, z: F) {
        self.x = x
        self.y = y
        self.z = z
    }

    init(affineX: F, affineY: F) {
        self.init(x: affineX, y: affineY, z: .one)
    }

    var isInfinity: Bool { z.isZero }

    /// (x, y), nil at infinity.
    var affine: (x: F, y: F)? {
        guard !isInfinity else { return nil }
        let zi = z.inverse
        let zi2 = zi.squared
        return (x * zi2, y * zi2 * zi)
    }

    /// y² = x³ + b, in Jacobian form: Y² = X³ + b·Z⁶ (infinity is on the curve).
    func isOnCurve(b: F) -> Bool {
        guard !isInfinity else { return true }
        let z2 = z.squared
        let z6 = z2.squared * z2
        return y.squared == x.squared * x + b * z6
    }

    /// 2P (a = 0: "dbl-2009-l").
    var doubled: JacobianPoint {
        guard !isInfinity, !y.isZero else { return .infinity }
        let a = x.squared
        let b = y.squared
        let c = b.squared
        let d = ((x + b).squared - a - c).doubled
        let e = a.doubled + a
        let f = e.squared
        let x3 = f - d.doubled
        let y3 = e * (d - x3) - c.doubled.doubled.doubled
        let z3 = (y * z).doubled
        return JacobianPoint(x: x3, y: y3, z: z3)
    }

    /// P + Q ("add-2007-bl"), falling back to doubling when P = Q.
    static func + (p: JacobianPoint, q: JacobianPoint) -> JacobianPoint {
        if p.isInfinity { return q }
        if q.isInfinity { return p }
        let z1z1 = p.z.squared
        let z2z2 = q.z.squared
        let u1 = p.x * z2z2
        let u2 = q.x * z1z1
        let s1 = p.y * q.z * z2z2
        let s2 = q.y * p.z * z1z1
        if u1 == u2 { return s1 == s2 ? p.doubled : .infinity }
        let h = u2 - u1
        let i = h.doubled.squared
        let j = h * i
        let r = (s2 - s1).doubled
        let v = u1 * i
        let x3 = r.squared - j - v.doubled
        let y3 = r * (v - x3) - (s1 * j).doubled
        let z3 = ((p.z + q.z).squared - z1z1 - z2z2) * h
        return JacobianPoint(x: x3, y: y3, z: z3)
    }

    static prefix func - (p: JacobianPoint) -> JacobianPoint { JacobianPoint(x: p.x, y: -p.y, z: p.z) }

    /// k·P, k as 64-bit words, least significant first (double-and-add; public scalars only).
    func times(_ scalar: [UInt64]) -> JacobianPoint {
        var result = JacobianPoint.infinity
        for word in scalar.reversed() {
            for bit in (0..<64).reversed() {
                result = result.doubled
                if (word >> UInt64(bit)) & 1 == 1 { result = result + self }
            }
        }
        return result
    }

    /// Is P in the subgroup of order r (r·P = infinity)?
    var isInPrimeOrderSubgroup: Bool { times(Curve.order).isInfinity }

    func equals(_ other: JacobianPoint) -> Bool {
        switch (affine, other.affine) {
        case (nil, nil): true
        case let (a?, b?): a.x == b.x && a.y == b.y
        default: false
        }
    }
}

typealias G1Point = JacobianPoint<Fp>
typealias G2Point = JacobianPoint<Fp2>

/// BLS12-381's constants.
enum Curve {
    /// r, the order of G1 and G2 (255 bits).
    static let order: [UInt64] = [0xffff_ffff_0000_0001, 0x53bd_a402_fffe_5bfe, 0x3339_d808_09a1_d805, 0x73ed_a753_299d_7d48]
    /// |x| = 0xd201000000010000, the curve's parameter (x is negative), which drives the Miller loop.
    static let parameter: UInt64 = 0xd201_0000_0001_0000
    /// h_eff for G1 (RFC 9380 §8.8.1): 1 − x.
    static let g1Cofactor: [UInt64] = [0xd201_0000_0001_0001]

    static let g1B = Fp(4)
    static let g2B = Fp2(c0: Fp(4), c1: Fp(4))

    static let g1Generator = G1Point(
        affineX: Fp(hex: "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
        affineY: Fp(hex: "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"))

    static let g2Generator = G2Point(
        affineX: Fp2(c0: Fp(hex: "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
                     c1: Fp(hex: "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")),
        affineY: Fp2(c0: Fp(hex: "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
                     c1: Fp(hex: "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")))
}
