/// Fp2 = Fp[u]/(u² + 1): c0 + c1·u. The field of G2's coordinates.
struct Fp2: Equatable, Sendable {
    var c0: Fp
    var c1: Fp

    static let zero = Fp2(c0: .zero, c1: .zero)
    static let one = Fp2(c0: .one, c1: .zero)

    var isZero: Bool { c0.isZero && c1.isZero }

    static func + (a: Fp2, b: Fp2) -> Fp2 { Fp2(c0: a.c0 + b.c0, c1: a.c1 + b.c1) }
    static func - (a: Fp2, b: Fp2) -> Fp2 { Fp2(c0: a.c0 - b.c0, c1: a.c1 - b.c1) }
    static prefix func - (a: Fp2) -> Fp2 { Fp2(c0: -a.c0, c1: -a.c1) }

    /// Karatsuba: three Fp multiplications.
    static func * (a: Fp2, b: Fp2) -> Fp2 {
        let v0 = a.c0 * b.c0
        let v1 = a.c1 * b.c1
        return Fp2(c0: v0 - v1, c1: (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1)
    }

    static func * (a: Fp2, b: Fp) -> Fp2 { Fp2(c0: a.c0 * b, c1: a.c1 * b) }

    var squared: Fp2 {
        let product = c0 * c1
        return Fp2(c0: (c0 + c1) * (c0 - c1), c1: product + product)
    }

    var doubled: Fp2 { self + self }

    /// Complex conjugate, which is also the Frobenius map x ↦ x^p.
    var conjugate: Fp2 { Fp2(c0: c0, c1: -c1) }

    /// Times ξ = 1 + u (the non-residue of the tower).
    var timesXi: Fp2 { Fp2(c0: c0 - c1, c1: c0 + c1) }

    var inverse: Fp2 {
        let t = (c0.squared + c1.squared).inverse
        return Fp2(c0: c0 * t, c1: -(c1 * t))
    }

    /// A square root when there is one, through the norm (checked; only decompression uses it).
    var squareRoot: Fp2? {
        if c1.isZero {
            if let s = c0.squareRoot { return Fp2(c0: s, c1: .zero) }
            if let s = (-c0).squareRoot { return Fp2(c0: .zero, c1: s) }
            return nil
        }
        guard let norm = (c0.squared + c1.squared).squareRoot else { return nil }
        let half = Fp(2).inverse
        var x0 = ((c0 + norm) * half).squareRoot
        if x0 == nil { x0 = ((c0 - norm) * half).squareRoot }
        guard let x0, !x0.isZero else { return nil }
        let root = Fp2(c0: x0, c1: c1 * (x0.doubled).inverse)
        return root.squared == self ? root : nil
    }

    /// The ZCash encoding's sign: c1 lexicographically largest, or c0 when c1 is 0.
    var isLexicographicallyLargest: Bool {
        c1.isZero ? c0.isLexicographicallyLargest : c1.isLexicographicallyLargest
    }

    func power(_ exponent: [UInt64]) -> Fp2 {
        var result = Fp2.one
        for word in exponent.reversed() {
            for bit in (0..<64).reversed() {
                result = result.squared
                if (word >> UInt64(bit)) & 1 == 1 { result = result * self }
            }
        }
        return result
    }
}
