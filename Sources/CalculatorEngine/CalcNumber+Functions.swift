/// The function keys' mathematics. Each either returns a value or throws the error state
/// the calculator shows; none can run unbounded (sizes are checked before big work).
extension CalcNumber {
    /// Largest n with n! < 1e10000 (3248! ≈ 1.98e9997, 3249! ≈ 6.4e10000).
    static let factorialLimit = 3248

    /// `self ^ y`. Rational exponents p/q take an exact q-th root when there is one
    /// (`27 ^ (1/3)` → 3) and allow negative bases for odd q (`-8 ^ (1/3)` → -2); a
    /// negative base with an inexact exponent is `invalid_input`. 0^0 is 1 (as IEEE `pow`);
    /// 0 to a negative power is `divide_by_zero`.
    func raised(to y: CalcNumber) throws(CalculatorError) -> CalcNumber {
        if y.isZero { return .one }
        if isZero {
            if y.sign < 0 { throw .divideByZero }
            return .zero
        }
        guard let q = y.exact else {
            if sign < 0 { throw .invalidInput }
            return try .settle(mpfr(precision: conversionPrecision(forExponent: y)).applying(MPFRNumber.power, y.mpfr()))
        }
        if q.isInteger { return try raised(toInteger: q) }
        let p = q.numeratorPart
        let root = q.denominatorPart
        let rootIsOdd = root.isOdd
        if sign < 0 && !rootIsOdd { throw .invalidInput }
        let base = magnitude()
        var result: CalcNumber
        if let k = root.intValue, k <= 1_000_000 {
            if let b = base.exact, let r = b.exactRoot(UInt(k)) {
                result = CalcNumber(exact: r)
            } else {
                result = try .settle(base.mpfr(precision: base.conversionPrecision).root(UInt(k)))
            }
            result = try result.raised(toInteger: p)
        } else {
            result = try .settle(base.mpfr(precision: base.conversionPrecision(forExponent: y)).applying(MPFRNumber.power, y.mpfr()))
        }
        return sign < 0 && p.isOdd ? result.negated() : result
    }

    /// `self ^ n` for an integer n: exact while the result stays under the size cap.
    func raised(toInteger n: GMPRational) throws(CalculatorError) -> CalcNumber {
        if let x = exact, let k = n.intValue {
            if x.compare(to: 1) == 0 { return .one }
            if x.compare(to: -1) == 0 { return n.isOdd ? CalcNumber(-1) : .one }
            let bits = x.numeratorBits + x.denominatorBits
            let (total, overflowed) = bits.multipliedReportingOverflow(by: k.magnitude > Int.max ? Int.max : Int(k.magnitude))
            if !overflowed, total <= CalcNumber.maximumExactBits * 2 {
                let r = x.raised(to: UInt(k.magnitude))
                return try .checked(k < 0 ? r.inverted() : r)
            }
        }
        let exponent = CalcNumber(exact: n)
        if sign < 0 {
            let positive = try magnitude().raised(toInteger: n)
            return n.isOdd ? positive.negated() : positive
        }
        return try .settle(mpfr(precision: conversionPrecision(forExponent: exponent)).applying(MPFRNumber.power, exponent.mpfr()))
    }

    /// Bits for the base of a power so that a large exponent does not magnify its rounding.
    private func conversionPrecision(forExponent y: CalcNumber) -> Int {
        conversionPrecision + Swift.max(0, Swift.min(y.log2Magnitude, 40_000))
    }

    /// `ʸ√self` (`8 root 3` → 2): `self ^ (1/y)`; the 0th root is `invalid_input`.
    func root(_ y: CalcNumber) throws(CalculatorError) -> CalcNumber {
        if y.isZero { throw .invalidInput }
        return try raised(to: CalcNumber.one / y)
    }

    func squareRoot() throws(CalculatorError) -> CalcNumber {
        if sign < 0 { throw .invalidInput }
        return try raised(to: CalcNumber(exact: .fraction(numerator: "1", denominator: "2")))
    }

    func cubeRoot() throws(CalculatorError) -> CalcNumber {
        try raised(to: CalcNumber(exact: .fraction(numerator: "1", denominator: "3")))
    }

    /// `1/x`; `1/0` is `divide_by_zero`.
    func reciprocal() throws(CalculatorError) -> CalcNumber { try CalcNumber.one / self }

    /// n! for integers 0…3248; negative or non-integer n is `invalid_input`, larger n `overflow`.
    func factorial() throws(CalculatorError) -> CalcNumber {
        guard let x = exact, x.isInteger, x.sign >= 0 else { throw .invalidInput }
        guard let n = x.intValue, n <= CalcNumber.factorialLimit else { throw .overflow }
        return CalcNumber(exact: .factorial(UInt(n)))
    }

    func naturalLogarithm() throws(CalculatorError) -> CalcNumber {
        if sign <= 0 { throw .invalidInput }
        if compare(to: 1) == 0, isExact { return .zero }
        return try .settle(mpfr().applying(MPFRNumber.log), zeroScale: isExact ? nil : 0)
    }

    /// log10, exact at powers of ten.
    func commonLogarithm() throws(CalculatorError) -> CalcNumber {
        if sign <= 0 { throw .invalidInput }
        if let x = exact {
            let e = x.decimalExponent
            if x == GMPRational.powerOfTen(e) { return CalcNumber(e) }
        }
        return try .settle(mpfr().applying(MPFRNumber.log10), zeroScale: isExact ? nil : 0)
    }

    /// eˣ; |x| > 23100 is `overflow` at once (e^23026 > 1e10000).
    func exponential() throws(CalculatorError) -> CalcNumber {
        if isZero { return .one }
        if compare(to: 23_100) > 0 || compare(to: -23_100) < 0 { throw .overflow }
        return try .settle(mpfr(precision: conversionPrecision).applying(MPFRNumber.exp))
    }

    /// 10ˣ, exact for integers and rationals with exact roots.
    func powerOfTen() throws(CalculatorError) -> CalcNumber {
        if compare(to: 10_001) > 0 || compare(to: -10_001) < 0 { throw .overflow }
        return try CalcNumber(10).raised(to: self)
    }
}

extension MPFRNumber {
    /// The real k-th root (`mpfr_rootn_ui`).
    func root(_ k: UInt) -> MPFRNumber { applying(MPFRNumber.rootN, turn: k) }
}
