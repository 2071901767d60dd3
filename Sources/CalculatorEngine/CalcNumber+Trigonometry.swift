/// Trigonometry in degrees or radians.
///
/// Degrees: an exact angle is reduced modulo 360 exactly, and the angles whose sine,
/// cosine or tangent is rational (by Niven's theorem: multiples of 30° and 45° for
/// tan, 30° and 90° steps for sin/cos) are answered from a table, so `sin 30` is
/// exactly 0.5 and `tan 90` is `undefined`. Other angles use MPFR's `sinu` family
/// with a full turn of 360, which is correctly rounded for the degree value itself.
/// Radians use MPFR's sin/cos/tan; an exact input is converted with enough extra bits
/// for its size so that large arguments reduce correctly. For an inexact argument, a
/// result indistinguishable from zero given the argument's own rounding is zero
/// (`sin π` → 0), and a tangent whose cosine is zero is `undefined`. (The sine of a
/// non-zero rational is never zero, so exact arguments are never snapped to zero.)
extension CalcNumber {
    enum Trigonometric: Sendable {
        case sin, cos, tan
    }

    enum InverseTrigonometric: Sendable {
        case asin, acos, atan
    }

    private static let half = GMPRational.fraction(numerator: "1", denominator: "2")

    private static func exactDegrees(_ function: Trigonometric, _ angle: Int) throws(CalculatorError) -> CalcNumber? {
        let half = CalcNumber(exact: Self.half)
        switch function {
        case .sin:
            switch angle {
            case 0, 180: return .zero
            case 30, 150: return half
            case 90: return .one
            case 210, 330: return half.negated()
            case 270: return CalcNumber(-1)
            default: return nil
            }
        case .cos:
            switch angle {
            case 90, 270: return .zero
            case 60, 300: return half
            case 0: return .one
            case 120, 240: return half.negated()
            case 180: return CalcNumber(-1)
            default: return nil
            }
        case .tan:
            switch angle {
            case 0, 180: return .zero
            case 45, 225: return .one
            case 135, 315: return CalcNumber(-1)
            case 90, 270: throw .undefined
            default: return nil
            }
        }
    }

    func trigonometric(_ function: Trigonometric, angle: AngleUnit) throws(CalculatorError) -> CalcNumber {
        switch angle {
        case .degrees:
            var argument = self
            if let x = exact {
                let turn = GMPRational(360)
                let reduced = x.subtracting(turn.multiplying(x.dividing(turn).floored()))
                if reduced.isInteger, let degrees = reduced.intValue,
                   let value = try Self.exactDegrees(function, degrees) {
                    return value
                }
                argument = CalcNumber(exact: reduced)
            }
            let input = argument.mpfr(precision: argument.conversionPrecision)
            let scale = argument.isExact ? nil : Swift.max(0, argument.log2Magnitude)
            switch function {
            case .sin: return try .settle(input.applying(MPFRNumber.sinTurn, turn: 360), zeroScale: scale)
            case .cos: return try .settle(input.applying(MPFRNumber.cosTurn, turn: 360), zeroScale: scale)
            case .tan:
                if try CalcNumber.settle(input.applying(MPFRNumber.cosTurn, turn: 360), zeroScale: scale).isZero {
                    throw .undefined
                }
                return try .settle(input.applying(MPFRNumber.tanTurn, turn: 360), zeroScale: scale)
            }
        case .radians:
            if isZero { return function == .cos ? .one : .zero }
            let input = mpfr(precision: conversionPrecision)
            let scale = isExact ? nil : Swift.max(0, log2Magnitude)
            switch function {
            case .sin: return try .settle(input.applying(MPFRNumber.sin), zeroScale: scale)
            case .cos: return try .settle(input.applying(MPFRNumber.cos), zeroScale: scale)
            case .tan:
                if try CalcNumber.settle(input.applying(MPFRNumber.cos), zeroScale: scale).isZero {
                    throw .undefined
                }
                return try .settle(input.applying(MPFRNumber.tan), zeroScale: scale)
            }
        }
    }

    /// asin, acos (|x| ≤ 1, else `invalid_input`) and atan, answering in `angle` units.
    func inverseTrigonometric(_ function: InverseTrigonometric, angle: AngleUnit) throws(CalculatorError) -> CalcNumber {
        if function != .atan, compare(to: 1) > 0 || compare(to: -1) < 0 { throw .invalidInput }
        if isZero, function != .acos { return .zero }
        if function == .acos, isExact, compare(to: 1) == 0 { return .zero }
        let input = mpfr()
        let result: MPFRNumber
        switch (function, angle) {
        case (.asin, .degrees): result = input.applying(MPFRNumber.asinTurn, turn: 360)
        case (.acos, .degrees): result = input.applying(MPFRNumber.acosTurn, turn: 360)
        case (.atan, .degrees): result = input.applying(MPFRNumber.atanTurn, turn: 360)
        case (.asin, .radians): result = input.applying(MPFRNumber.asin)
        case (.acos, .radians): result = input.applying(MPFRNumber.acos)
        case (.atan, .radians): result = input.applying(MPFRNumber.atan)
        }
        return try .settle(result)
    }
}
