import CGMP

extension CalculatorValue {
    /// `count` digits after the point from `position` (1 = the first one after the point),
    /// every one of them proven: a rational is expanded exactly; an inexact value is recomputed
    /// from its recipe by interval arithmetic at the precision the digits need plus guard bits,
    /// with more guard bits until both ends of the interval give the same digits (Ziv's strategy),
    /// up to a limit past which the answer is `.undecidable`.
    public func digits(position: Int, count: Int) throws(CalculatorDigitsError) -> CalculatorDigits {
        guard position >= 1, (1...Self.maximumCount).contains(count),
              position <= Self.maximumPosition - count + 1 else { throw .outOfRange }
        let decimals = position + count - 1
        switch number.storage {
        case .exact(let q):
            // An identified value is checked first: if its recipe is proven to differ from q,
            // the recipe's digits are the true ones.
            if let origin = number.origin,
               let proven = try? Self.proven(origin, magnitudeBits: q.isZero ? 0 : q.roughLog2 + 1, excluding: q,
                                             position: position, count: count),
               proven.status == .digits {
                return proven
            }
            if q.isZero {
                var zero = Self.zero(position: position, count: count)
                zero.identified = number.origin != nil
                return zero
            }
            let scaled = q.abs().multiplying(.powerOfTen(decimals)).floored()
            var result = Self.split(scaled, negative: q.sign < 0, position: position, count: count, precision: 0)
            result.exact = true
            result.identified = number.origin != nil
            let (preperiod, period) = q.decimalPeriod(limit: Self.periodSearchLimit)
            if period == 0 {
                result.terminatesAt = preperiod
            } else if let period {
                result.repeatStart = preperiod + 1
                result.repeatLength = period
            }
            return result
        case .approximate(let f):
            guard let recipe = f.recipe else { throw .unavailable }
            return try Self.proven(recipe, magnitudeBits: f.isZero ? 0 : f.binaryExponent, excluding: nil,
                                   position: position, count: count)
        }
    }

    /// Digits of `recipe`'s exact value by interval arithmetic, with guard bits growing fourfold
    /// until both ends of the interval agree (at most four times); `.undecidable` past that, or
    /// while the interval still holds `excluded` (an exact value the calculator identified).
    private static func proven(
        _ recipe: RealExpression, magnitudeBits: Int, excluding excluded: GMPRational?, position: Int, count: Int
    ) throws(CalculatorDigitsError) -> CalculatorDigits {
        let decimals = position + count - 1
        let target = Swift.max(0, magnitudeBits) + Int((Double(decimals) * 3.321928094887362).rounded(.up)) + 8
        var guardBits = 64 + 2 * recipe.size
        guard recipe.size * (target + guardBits) <= workLimit else { throw .tooCostly }
        var precision = target + guardBits
        for _ in 0..<4 {
            precision = target + guardBits
            guard recipe.size * precision <= workLimit * 4 else { break }
            if let x = MPFRNumber.enclosure(of: recipe, precision: precision), x.sign != 0,
               excluded.map({ x.lo.compare(to: $0) > 0 || x.hi.compare(to: $0) < 0 }) ?? true,
               let scaled = MPFRNumber.truncatedDigits(of: x, decimals: decimals, precision: precision) {
                return split(scaled, negative: x.sign < 0, position: position, count: count, precision: precision)
            }
            guardBits *= 4
        }
        return CalculatorDigits(status: .undecidable, negative: false, integer: "", position: position, digits: "",
                                exact: false, precision: precision)
    }

    private static func zero(position: Int, count: Int) -> CalculatorDigits {
        CalculatorDigits(status: .zero, negative: false, integer: "0", position: position,
                         digits: String(repeating: "0", count: count), exact: true, terminatesAt: 0, precision: 0)
    }

    /// The integer part and the digits `position…position+count−1` of floor(|x|·10^decimals).
    private static func split(_ scaled: GMPRational, negative: Bool, position: Int, count: Int, precision: Int) -> CalculatorDigits {
        let decimals = position + count - 1
        var text = Array(scaled.numeratorString.utf8)
        if text.count <= decimals { text = Array(repeating: UInt8(ascii: "0"), count: decimals + 1 - text.count) + text }
        let integer = text.prefix(text.count - decimals)
        let fraction = text.suffix(decimals).suffix(count)
        return CalculatorDigits(status: .digits, negative: negative, integer: String(decoding: integer, as: UTF8.self),
                                position: position, digits: String(decoding: fraction, as: UTF8.self),
                                exact: false, precision: precision)
    }
}

extension GMPRational {
    /// The decimal expansion's shape: how many digits come before the repeating part, and the
    /// period (0 when the expansion ends; nil when the period is longer than `limit` or the
    /// denominator's part prime to 10 does not fit in 64 bits).
    func decimalPeriod(limit: Int) -> (preperiod: Int, period: Int?) {
        let rest = GMPRational.make { q in __gmpz_set(numerator(of: q), CalculatorEngine.denominator(of: raw)) }
        let two = GMPRational(2)
        let five = GMPRational(5)
        // The pointers below point into these three: they must outlive every use.
        return withExtendedLifetime((rest, two, five)) { () -> (Int, Int?) in
            let d = numerator(of: rest.raw)
            let twos = Int(__gmpz_remove(d, d, numerator(of: two.raw)))
            let fives = Int(__gmpz_remove(d, d, numerator(of: five.raw)))
            let preperiod = Swift.max(twos, fives)
            if __gmpz_cmp_ui(d, 1) == 0 { return (preperiod, 0) }
            guard __gmpz_fits_ulong_p(d) != 0 else { return (preperiod, nil) }
            let modulus = UInt64(__gmpz_get_ui(d))
            // The multiplicative order of 10 modulo the denominator's part prime to 10.
            var r = 10 % modulus
            var period = 1
            while r != 1 {
                if period >= limit { return (preperiod, nil) }
                let (high, low) = r.multipliedFullWidth(by: 10)
                r = modulus.dividingFullWidth((high, low)).remainder
                period += 1
            }
            return (preperiod, period)
        }
    }
}
extension Calculator {
    /// The value the display shows (the number being typed, or the last result), or nil while
    /// an error shows.
    public var value: CalculatorValue? {
        if error != nil { return nil }
        if let entry { return (try? entry.value()).map(CalculatorValue.init(number:)) }
        return CalculatorValue(number: current)
    }
}
