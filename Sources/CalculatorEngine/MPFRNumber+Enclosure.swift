import CGMP
import CMPFR

/// A closed interval certain to hold a real number: both ends are MPFR numbers rounded
/// outward (the low end down, the high end up).
struct MPFRInterval {
    let lo: MPFRNumber
    let hi: MPFRNumber

    /// Whether every number in the interval has the same non-zero sign.
    var sign: Int {
        if lo.sign > 0 { return 1 }
        if hi.sign < 0 { return -1 }
        return 0
    }
}

/// Interval arithmetic over a `RealExpression`: every operation rounds its low end down and
/// its high end up, so the result holds the exact value of the whole tree, however deep. It
/// is the error bound Ziv's strategy needs: a caller that cannot decide the digits from the
/// interval retries at a higher precision.
extension MPFRNumber {
    /// An interval holding the exact value of `expression`, its ends at `precision` bits, or
    /// nil when it cannot be formed at this precision (a divisor, logarithm argument or
    /// tangent's cosine not yet known to keep its sign; an argument at a domain's edge).
    static func enclosure(of expression: RealExpression, precision p: Int) -> MPFRInterval? {
        switch expression.node {
        case .rational(let q):
            return MPFRInterval(lo: make(precision: p, rounding: MPFR_RNDD) { _ = mpfr_set_q($0, q.raw, $1) },
                                hi: make(precision: p, rounding: MPFR_RNDU) { _ = mpfr_set_q($0, q.raw, $1) })
        case .constant(let c):
            return MPFRInterval(lo: make(precision: p, rounding: MPFR_RNDD) { _ = constant(c, $0, $1) },
                                hi: make(precision: p, rounding: MPFR_RNDU) { _ = constant(c, $0, $1) })
        case .unary(let op, let a):
            guard let x = enclosure(of: a, precision: p) else { return nil }
            return unary(op, x, p)
        case .turned(let op, let k, let a):
            guard let x = enclosure(of: a, precision: p) else { return nil }
            return turned(op, k, x, p)
        case .binary(let op, let a, let b):
            guard let x = enclosure(of: a, precision: p), let y = enclosure(of: b, precision: p) else { return nil }
            return binary(op, x, y, p)
        }
    }

    private static func unary(_ op: RealExpression.Unary, _ x: MPFRInterval, _ p: Int) -> MPFRInterval? {
        let f = function(op)
        let trigonometry: RealExpression.Turned
        switch op {
        case .negate:
            return MPFRInterval(lo: make(precision: p) { _ = mpfr_neg($0, x.hi.raw, $1) },
                                hi: make(precision: p) { _ = mpfr_neg($0, x.lo.raw, $1) })
        case .log, .log10:
            return x.lo.sign > 0 ? increasing(x, p, f) : nil
        case .exp:
            return increasing(x, p, f)
        case .sin: trigonometry = .sin
        case .cos: trigonometry = .cos
        case .tan: trigonometry = .tan
        case .asin: trigonometry = .asin
        case .acos: trigonometry = .acos
        case .atan: trigonometry = .atan
        }
        return trigonometric(trigonometry, x, p, value: f, sine: mpfr_sin, cosine: mpfr_cos, quarter: 1)
    }

    private static func turned(_ op: RealExpression.Turned, _ k: UInt, _ x: MPFRInterval, _ p: Int) -> MPFRInterval? {
        let g = function(op)
        let f: UnaryFunction = { r, a, mode in g(r, a, k, mode) }
        if op == .root { return k % 2 == 0 && x.lo.sign < 0 ? nil : increasing(x, p, f) }
        return trigonometric(op, x, p, value: f, sine: { r, a, m in mpfr_sinu(r, a, k, m) },
                             cosine: { r, a, m in mpfr_cosu(r, a, k, m) }, quarter: Int(k / 4))
    }

    /// The direct and inverse trigonometric function `name` (`f`), in radians or in turn units
    /// (`sine` and `cosine` in the same units); `quarter` is a width under a quarter period.
    private static func trigonometric(
        _ name: RealExpression.Turned, _ x: MPFRInterval, _ p: Int, value f: UnaryFunction,
        sine: UnaryFunction, cosine: UnaryFunction, quarter: Int
    ) -> MPFRInterval? {
        switch name {
        case .atan, .root: return increasing(x, p, f)
        case .asin: return withinUnit(x) ? increasing(x, p, f) : nil
        case .acos: return withinUnit(x) ? decreasing(x, p, f) : nil
        case .sin: return periodic(x, p, value: f, slope: cosine, slopeSign: 1, maximumWidth: quarter)
        case .cos: return periodic(x, p, value: f, slope: sine, slopeSign: -1, maximumWidth: quarter)
        case .tan: return branch(x, p, value: f, cosine: cosine, maximumWidth: quarter)
        }
    }

    private static func binary(_ op: RealExpression.Binary, _ x: MPFRInterval, _ y: MPFRInterval, _ p: Int) -> MPFRInterval? {
        switch op {
        case .add:
            return MPFRInterval(lo: make(precision: p, rounding: MPFR_RNDD) { _ = mpfr_add($0, x.lo.raw, y.lo.raw, $1) },
                                hi: make(precision: p, rounding: MPFR_RNDU) { _ = mpfr_add($0, x.hi.raw, y.hi.raw, $1) })
        case .subtract:
            return MPFRInterval(lo: make(precision: p, rounding: MPFR_RNDD) { _ = mpfr_sub($0, x.lo.raw, y.hi.raw, $1) },
                                hi: make(precision: p, rounding: MPFR_RNDU) { _ = mpfr_sub($0, x.hi.raw, y.lo.raw, $1) })
        case .multiply:
            return corners(x, y, p, mpfr_mul)
        case .divide:
            return y.sign != 0 ? corners(x, y, p, mpfr_div) : nil
        case .power:
            // The engine raises only positive bases (signs are handled exactly around it);
            // x^y is monotonic in each argument there, so the corners bound it.
            return x.lo.sign > 0 ? corners(x, y, p, mpfr_pow) : nil
        case .fmod:
            // x − n·y with n = trunc(x / y), once every quotient in the box truncates alike.
            guard y.sign != 0, let quotient = binary(.divide, x, y, p) else { return nil }
            let bits = Swift.max(p, quotient.hi.isZero ? 0 : quotient.hi.binaryExponent,
                                 quotient.lo.isZero ? 0 : quotient.lo.binaryExponent) + 2
            let low = make(precision: bits) { r, _ in _ = mpfr_trunc(r, quotient.lo.raw) }
            let high = make(precision: bits) { r, _ in _ = mpfr_trunc(r, quotient.hi.raw) }
            guard mpfr_equal_p(low.raw, high.raw) != 0 else { return nil }
            let n = MPFRInterval(lo: low, hi: low)
            guard let product = binary(.multiply, n, y, p) else { return nil }
            return binary(.subtract, x, product, p)
        }
    }

    // MARK: Shapes of functions

    private static func increasing(_ x: MPFRInterval, _ p: Int, _ f: UnaryFunction) -> MPFRInterval {
        MPFRInterval(lo: make(precision: p, rounding: MPFR_RNDD) { _ = f($0, x.lo.raw, $1) },
                     hi: make(precision: p, rounding: MPFR_RNDU) { _ = f($0, x.hi.raw, $1) })
    }

    private static func decreasing(_ x: MPFRInterval, _ p: Int, _ f: UnaryFunction) -> MPFRInterval {
        MPFRInterval(lo: make(precision: p, rounding: MPFR_RNDD) { _ = f($0, x.hi.raw, $1) },
                     hi: make(precision: p, rounding: MPFR_RNDU) { _ = f($0, x.lo.raw, $1) })
    }

    private static func withinUnit(_ x: MPFRInterval) -> Bool {
        x.lo.compare(to: -1) >= 0 && x.hi.compare(to: 1) <= 0
    }

    private static func width(_ x: MPFRInterval) -> MPFRNumber {
        make(precision: 64, rounding: MPFR_RNDU) { _ = mpfr_sub($0, x.hi.raw, x.lo.raw, $1) }
    }

    /// The sign of `slope` at `x` (exact: a correctly rounded value keeps its sign).
    private static func slopeSign(_ slope: UnaryFunction, at x: MPFRNumber) -> Int {
        make(precision: 32) { _ = slope($0, x.raw, $1) }.sign
    }

    /// sin or cos (in radians or turn units) over an interval narrower than a quarter period
    /// (half the distance between extrema): monotonic unless the slope changes sign inside,
    /// and then the one extremum inside is ±1.
    private static func periodic(
        _ x: MPFRInterval, _ p: Int, value f: UnaryFunction, slope: UnaryFunction, slopeSign: Int, maximumWidth: Int
    ) -> MPFRInterval? {
        guard width(x).compare(to: maximumWidth) < 0 else { return nil }
        let atLow = slopeSign * Self.slopeSign(slope, at: x.lo)
        let atHigh = slopeSign * Self.slopeSign(slope, at: x.hi)
        if atLow > 0 && atHigh > 0 { return increasing(x, p, f) }
        if atLow < 0 && atHigh < 0 { return decreasing(x, p, f) }
        let downs = [x.lo, x.hi].map { v in make(precision: p, rounding: MPFR_RNDD) { _ = f($0, v.raw, $1) } }
        let ups = [x.lo, x.hi].map { v in make(precision: p, rounding: MPFR_RNDU) { _ = f($0, v.raw, $1) } }
        let one = make(precision: p) { _ = mpfr_set_si($0, 1, $1) }
        let minusOne = make(precision: p) { _ = mpfr_set_si($0, -1, $1) }
        if atLow >= 0 && atHigh <= 0 { return MPFRInterval(lo: smaller(downs[0], downs[1]), hi: one) }
        return MPFRInterval(lo: minusOne, hi: larger(ups[0], ups[1]))
    }

    /// tan over an interval with no pole: the cosine keeps one strict sign at both ends of an
    /// interval narrower than the distance between poles, so tan increases across it.
    private static func branch(
        _ x: MPFRInterval, _ p: Int, value f: UnaryFunction, cosine: UnaryFunction, maximumWidth: Int
    ) -> MPFRInterval? {
        guard width(x).compare(to: maximumWidth) < 0 else { return nil }
        let low = slopeSign(cosine, at: x.lo)
        guard low != 0, low == slopeSign(cosine, at: x.hi) else { return nil }
        return increasing(x, p, f)
    }

    /// A function monotonic in each argument over the box: its corners hold the extremes.
    private static func corners(_ x: MPFRInterval, _ y: MPFRInterval, _ p: Int, _ f: BinaryFunction) -> MPFRInterval {
        let pairs = [(x.lo, y.lo), (x.lo, y.hi), (x.hi, y.lo), (x.hi, y.hi)]
        let downs = pairs.map { a, b in make(precision: p, rounding: MPFR_RNDD) { _ = f($0, a.raw, b.raw, $1) } }
        let ups = pairs.map { a, b in make(precision: p, rounding: MPFR_RNDU) { _ = f($0, a.raw, b.raw, $1) } }
        return MPFRInterval(lo: downs.dropFirst().reduce(downs[0], smaller), hi: ups.dropFirst().reduce(ups[0], larger))
    }

    private static func smaller(_ a: MPFRNumber, _ b: MPFRNumber) -> MPFRNumber { mpfr_lessequal_p(a.raw, b.raw) != 0 ? a : b }
    private static func larger(_ a: MPFRNumber, _ b: MPFRNumber) -> MPFRNumber { mpfr_greaterequal_p(a.raw, b.raw) != 0 ? a : b }

    // MARK: Decimal digits

    /// floor(|v| · 10^decimals) for every v in `x` (which must not hold 0), or nil when the
    /// interval is still too wide to decide it.
    static func truncatedDigits(of x: MPFRInterval, decimals: Int, precision p: Int) -> GMPRational? {
        let (small, large) = x.sign > 0 ? (x.lo, x.hi) : (x.hi, x.lo)
        func scaled(_ v: MPFRNumber, _ mode: mpfr_rnd_t) -> GMPRational {
            let power = make(precision: p, rounding: mode) { _ = mpfr_ui_pow_ui($0, 10, UInt(decimals), $1) }
            let product = make(precision: p, rounding: mode) { r, m in
                _ = mpfr_abs(r, v.raw, m)
                _ = mpfr_mul(r, r, power.raw, m)
            }
            return GMPRational.make { _ = mpfr_get_z(numerator(of: $0), product.raw, MPFR_RNDD) }
        }
        let low = scaled(small, MPFR_RNDD)
        let high = scaled(large, MPFR_RNDU)
        return low == high ? low : nil
    }
}
