/// The optimal ate pairing of BLS12-381, only as far as a signature check needs it: whether
/// a product of pairings is 1.
///
/// The twist: G2 points live on E': y² = x³ + 4ξ over Fp2, mapped into E(Fp12) by
/// (x, y) ↦ (x·w⁻², y·w⁻³) (w⁶ = ξ). A line through twist points T, Q with slope λ' (computed on
/// E') evaluated at P = (xP, yP) in G1, times w³ (which lies in Fp4 and so vanishes in the final
/// exponentiation), is (λ'·xT − yT) + (−λ'·xP)·w² + yP·w³. Its first two parts depend on the
/// G2 point only, so they are computed once per G2 point (`G2Lines`): a public key's once for
/// all the rounds it signs.
enum Pairing {
    /// Is e(p1, q1) · e(p2, q2) · … = 1? Each G1 point must not be infinity.
    static func productIsOne(_ pairs: [(G1Point, G2Lines)]) -> Bool {
        var points = [(x: Fp, y: Fp)]()
        for (p, _) in pairs {
            guard let affine = p.affine else { return false }
            points.append(affine)
        }
        // Miller loop over the bits of |x| below its top one, all pairs at once (one squaring per
        // bit); x < 0 would conjugate f, which does not change whether the final value is 1.
        var f = Fp12.one
        var step = 0
        for bit in (0..<63).reversed() {
            f = f.squared
            let lines = (Curve.parameter >> UInt64(bit)) & 1 == 1 ? 2 : 1
            for s in step..<(step + lines) {
                for (i, pair) in pairs.enumerated() {
                    f = f * pair.1.steps[s].evaluated(at: points[i])
                }
            }
            step += lines
        }
        return finalExponentiationIsOne(f)
    }

    /// Is f^((p¹² − 1)/r) = 1? The easy part (p⁶ − 1)(p² + 1) by conjugation, one inversion and
    /// the p² Frobenius; then, on the cyclotomic subgroup (where the inverse is the conjugate),
    /// g^(3·(p⁴ − p² + 1)/r) = g^((x − 1)²·(x + p)·(x² + p² − 1) + 3) with four powers of |x|
    /// (Hayashida–Hayasaka–Teruya). The cube is 1 exactly when the value is: it lies in a group
    /// of order r, prime to 3.
    static func finalExponentiationIsOne(_ f: Fp12) -> Bool {
        let easy1 = f.conjugate * f.inverse
        let g = easy1.frobeniusSquared * easy1
        let a = g.powerOfX * g.conjugate                       // g^(x − 1)
        let b = a.powerOfX * a.conjugate                       // g^((x − 1)²)
        let c = b.powerOfX * b.frobenius                       // · (x + p)
        let d = c.powerOfX.powerOfX * c.frobeniusSquared * c.conjugate   // · (x² + p² − 1)
        return d * g.squared * g == .one
    }
}

/// The Miller loop's line coefficients of one G2 point, in loop order (a doubling per bit of
/// |x| below the top one, then an addition for each set bit).
struct G2Lines: Sendable {
    struct Step: Sendable {
        /// λ'·xT − yT.
        let constant: Fp2
        let slope: Fp2

        @inline(__always)
        func evaluated(at p: (x: Fp, y: Fp)) -> Fp12 {
            Fp12(c0: Fp6(c0: constant, c1: -(slope * p.x), c2: .zero),
                 c1: Fp6(c0: .zero, c1: Fp2(c0: p.y, c1: .zero), c2: .zero))
        }
    }

    let steps: [Step]

    /// nil for infinity.
    init?(_ q: G2Point) {
        guard let q = q.affine else { return nil }
        var t = q
        var steps = [Step]()
        for bit in (0..<63).reversed() {
            let slope = (t.x.squared * Fp(3)) * t.y.doubled.inverse
            steps.append(Step(constant: slope * t.x - t.y, slope: slope))
            let x3 = slope.squared - t.x.doubled
            t = (x3, slope * (t.x - x3) - t.y)
            if (Curve.parameter >> UInt64(bit)) & 1 == 1 {
                // T = k·Q with 1 < k < r here, so T ≠ ±Q.
                let slope = (q.y - t.y) * (q.x - t.x).inverse
                steps.append(Step(constant: slope * t.x - t.y, slope: slope))
                let x3 = slope.squared - t.x - q.x
                t = (x3, slope * (t.x - x3) - t.y)
            }
        }
        self.steps = steps
    }

    /// −g2's lines (the signature's side of every check).
    static let negatedGenerator = G2Lines(-Curve.g2Generator)!
}
