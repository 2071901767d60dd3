/// Fp6 = Fp2[v]/(v³ − ξ), ξ = 1 + u.
struct Fp6: Equatable, Sendable {
    var c0: Fp2
    var c1: Fp2
    var c2: Fp2

    static let zero = Fp6(c0: .zero, c1: .zero, c2: .zero)
    static let one = Fp6(c0: .one, c1: .zero, c2: .zero)

    static func + (a: Fp6, b: Fp6) -> Fp6 { Fp6(c0: a.c0 + b.c0, c1: a.c1 + b.c1, c2: a.c2 + b.c2) }
    static func - (a: Fp6, b: Fp6) -> Fp6 { Fp6(c0: a.c0 - b.c0, c1: a.c1 - b.c1, c2: a.c2 - b.c2) }
    static prefix func - (a: Fp6) -> Fp6 { Fp6(c0: -a.c0, c1: -a.c1, c2: -a.c2) }

    /// Karatsuba over Fp2: six Fp2 multiplications.
    static func * (a: Fp6, b: Fp6) -> Fp6 {
        let t0 = a.c0 * b.c0
        let t1 = a.c1 * b.c1
        let t2 = a.c2 * b.c2
        return Fp6(c0: ((a.c1 + a.c2) * (b.c1 + b.c2) - t1 - t2).timesXi + t0,
                   c1: (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1 + t2.timesXi,
                   c2: (a.c0 + a.c2) * (b.c0 + b.c2) - t0 - t2 + t1)
    }

    /// Times v: (c0, c1, c2) ↦ (ξ·c2, c0, c1).
    var timesV: Fp6 { Fp6(c0: c2.timesXi, c1: c0, c2: c1) }

    var inverse: Fp6 {
        let a = c0.squared - (c1 * c2).timesXi
        let b = c2.squared.timesXi - c0 * c1
        let c = c1.squared - c0 * c2
        let f = (c0 * a + (c2 * b + c1 * c).timesXi).inverse
        return Fp6(c0: a * f, c1: b * f, c2: c * f)
    }
}

/// Fp12 = Fp6[w]/(w² − v), where the pairing's values live. As a polynomial in w over Fp2
/// (w⁶ = ξ) its coefficients of w⁰…w⁵ are c0.c0, c1.c0, c0.c1, c1.c1, c0.c2, c1.c2.
struct Fp12: Equatable, Sendable {
    var c0: Fp6
    var c1: Fp6

    static let one = Fp12(c0: .one, c1: .zero)

    static func * (a: Fp12, b: Fp12) -> Fp12 {
        let t0 = a.c0 * b.c0
        let t1 = a.c1 * b.c1
        return Fp12(c0: t0 + t1.timesV, c1: (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1)
    }

    var squared: Fp12 {
        let product = c0 * c1
        let c0 = (self.c0 + self.c1) * (self.c0 + self.c1.timesV) - product - product.timesV
        return Fp12(c0: c0, c1: product + product)
    }

    /// x ↦ x^(p⁶), the inverse on the cyclotomic subgroup.
    var conjugate: Fp12 { Fp12(c0: c0, c1: -c1) }

    var inverse: Fp12 {
        let t = (c0 * c0 - (c1 * c1).timesV).inverse
        return Fp12(c0: c0 * t, c1: -(c1 * t))
    }

    /// x ↦ x^(p²): each coefficient of wⁱ (in Fp2, fixed by p²) times ξ^(i(p²−1)/6), which lies in Fp.
    var frobeniusSquared: Fp12 {
        let g = Fp12.frobenius2
        return Fp12(c0: Fp6(c0: c0.c0, c1: c0.c1 * g[2], c2: c0.c2 * g[4]),
                    c1: Fp6(c0: c1.c0 * g[1], c1: c1.c1 * g[3], c2: c1.c2 * g[5]))
    }

    /// x ↦ x^p: each coefficient of wⁱ conjugated, times γⁱ with γ = ξ^((p−1)/6).
    var frobenius: Fp12 {
        let g = Fp12.frobenius1
        return Fp12(c0: Fp6(c0: c0.c0.conjugate, c1: c0.c1.conjugate * g[2], c2: c0.c2.conjugate * g[4]),
                    c1: Fp6(c0: c1.c0.conjugate * g[1], c1: c1.c1.conjugate * g[3], c2: c1.c2.conjugate * g[5]))
    }

    /// γⁱ = ξ^(i(p−1)/6) for i = 0…5.
    static let frobenius1: [Fp2] = {
        let gamma = Fp2(c0: .one, c1: .one).power(Fp12.pMinus1Over6)
        var powers = [Fp2.one]
        for _ in 1..<6 { powers.append(powers[powers.count - 1] * gamma) }
        return powers
    }()

    /// ξ^(i(p²−1)/6) for i = 0…5 = N(γ)^i (N(γ) = γ·γ^p, in Fp).
    static let frobenius2: [Fp] = {
        let gamma = frobenius1[1]
        let norm = (gamma * gamma.conjugate).c0
        var powers = [Fp.one]
        for _ in 1..<6 { powers.append(powers[powers.count - 1] * norm) }
        return powers
    }()

    static let pMinus1Over6 = Fp.exponentWords(hex: "045582fc5eeaa66f0c849bf3b5e1f223e613e1eb7deb831fe688231ad3c82906051caaaa72e3555549aa7ffffffff1c7")

    /// self^x for the curve's x = −0xd201000000010000, on the cyclotomic subgroup (where the
    /// inverse is the conjugate): self^|x| by square-and-multiply, conjugated.
    var powerOfX: Fp12 {
        var result = self
        for bit in (0..<63).reversed() {
            result = result.squared
            if (Curve.parameter >> UInt64(bit)) & 1 == 1 { result = result * self }
        }
        return result.conjugate
    }
}
