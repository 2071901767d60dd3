/// A calculator value: an exact rational whenever the result is rational and
/// reasonably sized, otherwise a 400-bit MPFR approximation.
///
/// Exactness policy (why `sqrt 2 sq` shows 2):
/// - `+ − × ÷ mod`, integer powers, factorials, perfect roots of rationals and
///   trigonometry at the exact degree angles (0, 30, 45, 60, 90… where the value is
///   rational) are computed exactly with GMP.
/// - Everything else runs in MPFR at 400 bits and then goes through `settle`: a result
///   within 2^-360 (relative) of a rational p/q with q ≤ 2^80 is taken to be that
///   rational (found by continued fractions), and a result below 2^-360 of the scale of
///   its inputs (sin π, or x − y of nearly equal inexact values) is taken to be 0.
///   The tolerance leaves 40 bits for accumulated rounding error, while a value that is
///   truly irrational lands that close to such a fraction with probability about
///   2^160 · 2^-360 — never in practice. This is the same idea as an "identify"
///   step in computer algebra, with bounds chosen so that it cannot misfire.
/// - An exact value whose numerator and denominator together need more than 70,000
///   bits is kept as an approximation instead, to bound time and memory.
///
/// Range: results with |x| ≥ 1e10000 or 0 < |x| < 1e-9999 are `overflow` (display
/// exponents stay within four digits, as in Windows Calculator).
struct CalcNumber: Sendable {
    enum Storage: Sendable {
        case exact(GMPRational)
        case approximate(MPFRNumber)
    }

    let storage: Storage
    /// For an exact value the calculator identified (`settle`: within 2^-360 of a small fraction
    /// or of 0), and exact arithmetic on such values, the operations that made it: digits on
    /// demand recompute it to check the identification (`CalculatorValue.digits`).
    let origin: RealExpression?

    init(exact q: GMPRational, origin: RealExpression? = nil) {
        storage = .exact(q)
        self.origin = origin
    }

    init(approximate f: MPFRNumber) {
        storage = .approximate(f)
        origin = nil
    }

    /// How the value was computed: its recipe, its origin, or the exact rational itself.
    var recipe: RealExpression? {
        switch storage {
        case .exact(let q): origin ?? RealExpression(.rational(q))
        case .approximate(let f): f.recipe
        }
    }

    /// The origin of an exact result of `op` on `a` and `b`: nil unless one of them has one.
    static func origin(_ op: RealExpression.Binary, _ a: CalcNumber, _ b: CalcNumber) -> RealExpression? {
        guard a.origin != nil || b.origin != nil, let x = a.recipe, let y = b.recipe else { return nil }
        return RealExpression(.binary(op, x, y))
    }

    static let zero = CalcNumber(exact: GMPRational(0))
    static let one = CalcNumber(exact: GMPRational(1))
    static let pi = CalcNumber(approximate: .pi)
    static let e = CalcNumber(approximate: .e)

    init(_ value: Int) { self.init(exact: GMPRational(value)) }

    static let maximumExactBits = 70_000
    static let snapMaximumDenominatorBits = 80
    static let snapSlackBits = 40

    private static let upperLimit = GMPRational.powerOfTen(10_000)
    private static let lowerLimit = GMPRational.powerOfTen(-9_999)
    private static let upperLimitMPFR = MPFRNumber.from(upperLimit)
    private static let lowerLimitMPFR = MPFRNumber.from(lowerLimit)

    // MARK: Queries

    var exact: GMPRational? {
        if case .exact(let q) = storage { return q }
        return nil
    }

    var isExact: Bool { exact != nil }

    var sign: Int {
        switch storage {
        case .exact(let q): q.sign
        case .approximate(let f): f.sign
        }
    }

    var isZero: Bool { sign == 0 }

    /// Roughly log2|x| (within ±1); a very negative number for 0.
    var log2Magnitude: Int {
        switch storage {
        case .exact(let q): q.isZero ? -1_000_000 : q.roughLog2
        case .approximate(let f): f.isZero ? -1_000_000 : f.binaryExponent
        }
    }

    /// The value at `precision` bits (exact values are rounded once, MPFR values kept).
    func mpfr(precision: Int = MPFRNumber.workingPrecision) -> MPFRNumber {
        switch storage {
        case .exact(let q): .from(q, precision: precision, origin: origin)
        case .approximate(let f): f
        }
    }

    /// Enough bits that rounding an exact input loses nothing visible even after
    /// functions like sin that look at the value modulo 2π.
    var conversionPrecision: Int { MPFRNumber.workingPrecision + Swift.max(0, log2Magnitude) }

    /// Compares with a machine integer.
    func compare(to value: Int) -> Int {
        switch storage {
        case .exact(let q): q.compare(to: value)
        case .approximate(let f): f.compare(to: value)
        }
    }

    // MARK: Building results

    /// An exact result, range-checked, demoted to an approximation when it grows too large.
    static func checked(_ q: GMPRational, origin: RealExpression? = nil) throws(CalculatorError) -> CalcNumber {
        if q.isZero { return CalcNumber(exact: q, origin: origin) }
        let log2 = q.roughLog2
        // log2(1e10000) ≈ 33219.3, log2(1e-9999) ≈ -33216.0; roughLog2 is within one of log2|x|.
        if log2 >= 33_221 || log2 <= -33_219 { throw .overflow }
        if log2 >= 33_218, q.compareMagnitude(upperLimit) >= 0 { throw .overflow }
        if log2 <= -33_214, q.compareMagnitude(lowerLimit) < 0 { throw .overflow }
        if q.numeratorBits + q.denominatorBits > maximumExactBits {
            return CalcNumber(approximate: .from(q, origin: origin))
        }
        return CalcNumber(exact: q, origin: origin)
    }

    /// An MPFR result, range-checked, recognised as exact where it must be (see the type's doc).
    /// - Parameter zeroScale: log2 of the size of the inputs when the operation can cancel
    ///   to zero (x − y, sin x); nil when a zero result can only be exact.
    static func settle(_ f: MPFRNumber, zeroScale: Int? = nil) throws(CalculatorError) -> CalcNumber {
        if f.isNaN { throw .invalidInput }
        if f.isInfinite || f.underflowed { throw .overflow }
        if f.isZero { return .zero }
        let exponent = f.binaryExponent
        if let scale = zeroScale, exponent < scale - (MPFRNumber.workingPrecision - snapSlackBits) {
            return CalcNumber(exact: GMPRational(0), origin: f.recipe)
        }
        if f.compareMagnitude(upperLimitMPFR) >= 0 || f.compareMagnitude(lowerLimitMPFR) < 0 {
            throw .overflow
        }
        if Swift.abs(exponent) < 300, let q = recogniseRational(f) {
            return CalcNumber(exact: q, origin: f.recipe)
        }
        return CalcNumber(approximate: f)
    }

    /// The rational p/q with q ≤ 2^80 within 2^-360 relative of `f`, if there is one.
    private static func recogniseRational(_ f: MPFRNumber) -> GMPRational? {
        let x = f.exactRational.abs()
        if x.isInteger { return f.sign < 0 ? x.negated() : x }
        let tolerance = x.multiplying(.powerOfTwo(-(MPFRNumber.workingPrecision - snapSlackBits)))
        let denominatorLimit = GMPRational.powerOfTwo(snapMaximumDenominatorBits)
        var remainder = x
        var (h1, h2) = (GMPRational(1), GMPRational(0))
        var (k1, k2) = (GMPRational(0), GMPRational(1))
        while true {
            let a = remainder.floored()
            let h = a.multiplying(h1).adding(h2)
            let k = a.multiplying(k1).adding(k2)
            if GMPRational.compare(k, denominatorLimit) > 0 { return nil }
            let candidate = h.dividing(k)
            if GMPRational.compare(x.subtracting(candidate).abs(), tolerance) <= 0 {
                return f.sign < 0 ? candidate.negated() : candidate
            }
            let fraction = remainder.subtracting(a)
            if fraction.isZero { return nil }
            remainder = fraction.inverted()
            (h2, h1) = (h1, h)
            (k2, k1) = (k1, k)
        }
    }

    // MARK: Arithmetic

    static func + (a: CalcNumber, b: CalcNumber) throws(CalculatorError) -> CalcNumber {
        if let x = a.exact, let y = b.exact { return try checked(x.adding(y), origin: origin(.add, a, b)) }
        return try settle(a.mpfr().applying(MPFRNumber.add, b.mpfr()), zeroScale: Swift.max(a.log2Magnitude, b.log2Magnitude))
    }

    static func - (a: CalcNumber, b: CalcNumber) throws(CalculatorError) -> CalcNumber {
        if let x = a.exact, let y = b.exact { return try checked(x.subtracting(y), origin: origin(.subtract, a, b)) }
        return try settle(a.mpfr().applying(MPFRNumber.subtract, b.mpfr()), zeroScale: Swift.max(a.log2Magnitude, b.log2Magnitude))
    }

    static func * (a: CalcNumber, b: CalcNumber) throws(CalculatorError) -> CalcNumber {
        if a.isZero || b.isZero { return .zero }
        if let x = a.exact, let y = b.exact { return try checked(x.multiplying(y), origin: origin(.multiply, a, b)) }
        return try settle(a.mpfr().applying(MPFRNumber.multiply, b.mpfr()))
    }

    /// x ÷ 0 is `divide_by_zero`, 0 ÷ 0 is `undefined`.
    static func / (a: CalcNumber, b: CalcNumber) throws(CalculatorError) -> CalcNumber {
        if b.isZero { throw a.isZero ? .undefined : .divideByZero }
        if a.isZero { return .zero }
        if let x = a.exact, let y = b.exact { return try checked(x.dividing(y), origin: origin(.divide, a, b)) }
        return try settle(a.mpfr().applying(MPFRNumber.divide, b.mpfr()))
    }

    /// The remainder of a truncating division: takes the sign of the dividend
    /// (`-7 mod 3` → `-1`); x mod 0 is `undefined`, as in Windows Calculator.
    func remainder(dividingBy b: CalcNumber) throws(CalculatorError) -> CalcNumber {
        if b.isZero { throw .undefined }
        if isZero { return .zero }
        if let x = exact, let y = b.exact {
            return try .checked(x.subtracting(y.multiplying(x.dividing(y).truncated())))
        }
        return try .settle(mpfr().applying(MPFRNumber.fmod, b.mpfr()), zeroScale: log2Magnitude)
    }

    func negated() -> CalcNumber {
        switch storage {
        case .exact(let q): CalcNumber(exact: q.negated(), origin: origin.flatMap { RealExpression(.unary(.negate, $0)) })
        case .approximate(let f): CalcNumber(approximate: f.applying(MPFRNumber.negate))
        }
    }

    func magnitude() -> CalcNumber { sign < 0 ? negated() : self }
}


extension GMPRational {
    /// `2^exponent` exactly.
    static func powerOfTwo(_ exponent: Int) -> GMPRational {
        let base = GMPRational(2).raised(to: UInt(exponent.magnitude))
        return exponent >= 0 ? base : base.inverted()
    }
}
