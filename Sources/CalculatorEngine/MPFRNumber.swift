import CGMP
import CMPFR

/// A binary floating-point number owning one MPFR `mpfr_t`; the only type that calls MPFR.
///
/// Instances are immutable once a factory returns. Results are computed at
/// `workingPrecision` bits (about 120 decimal digits), far more than the 16 shown,
/// so that rounding to 16 digits is right and inexact chains can still be recognised
/// as exact values (see `CalcNumber.settle`).
final class MPFRNumber: @unchecked Sendable {
    // @unchecked: the wrapped mpfr_t is written only while the instance is being built.
    static let workingPrecision = 400

    let raw: UnsafeMutablePointer<__mpfr_struct>
    /// How the value was computed from exact numbers, π and e (nil past `RealExpression`'s
    /// size cap): `digits` recomputes it at any precision.
    private(set) var recipe: RealExpression?
    /// MPFR raised its underflow flag while computing this value (a true result too small
    /// for MPFR's exponent range was rounded to zero).
    private(set) var underflowed = false

    private init(precision: Int) {
        MPFRThreadCache.register()
        raw = .allocate(capacity: 1)
        mpfr_init2(raw, mpfr_prec_t(precision))
    }

    deinit {
        mpfr_clear(raw)
        raw.deallocate()
    }

    /// Builds a number with `body` writing into a fresh `mpfr_t` (rounding to nearest).
    static func make(
        precision: Int = workingPrecision,
        rounding: mpfr_rnd_t = MPFR_RNDN,
        recipe: RealExpression? = nil,
        _ body: (UnsafeMutablePointer<__mpfr_struct>, mpfr_rnd_t) -> Void
    ) -> MPFRNumber {
        let result = MPFRNumber(precision: precision)
        mpfr_clear_flags()
        body(result.raw, rounding)
        result.underflowed = mpfr_underflow_p() != 0
        result.recipe = recipe
        return result
    }

    /// `q` rounded to `precision` bits; its recipe is `origin` when the exact value was
    /// identified from a computation (`CalcNumber.origin`), else `q` itself.
    static func from(_ q: GMPRational, precision: Int = workingPrecision, origin: RealExpression? = nil) -> MPFRNumber {
        make(precision: precision, recipe: origin ?? RealExpression(.rational(q))) { r, mode in _ = mpfr_set_q(r, q.raw, mode) }
    }

    /// Compares with an exact rational.
    func compare(to q: GMPRational) -> Int { Int(mpfr_cmp_q(raw, q.raw).signum()) }

    static let pi = make(recipe: .pi) { r, mode in _ = constant(.pi, r, mode) }
    static let e = make(recipe: .e) { r, mode in _ = constant(.e, r, mode) }

    static func constant(_ c: RealExpression.Constant, _ r: UnsafeMutablePointer<__mpfr_struct>, _ mode: mpfr_rnd_t) -> Int32 {
        switch c {
        case .pi: return mpfr_const_pi(r, mode)
        case .e:
            // e^1 with one rounding: exp of the exact 1.
            _ = mpfr_set_ui(r, 1, MPFR_RNDN)
            return mpfr_exp(r, r, mode)
        }
    }

    // MARK: Queries

    var isNaN: Bool { mpfr_nan_p(raw) != 0 }
    var isInfinite: Bool { mpfr_inf_p(raw) != 0 }
    var isZero: Bool { mpfr_zero_p(raw) != 0 }
    var sign: Int { Int(mpfr_sgn(raw).signum()) }
    /// The binary exponent e with 2^(e-1) ≤ |x| < 2^e (x finite and non-zero).
    var binaryExponent: Int { Int(mpfr_get_exp(raw)) }

    func compareMagnitude(_ other: MPFRNumber) -> Int { Int(mpfr_cmpabs(raw, other.raw).signum()) }
    func compare(to value: Int) -> Int { Int(mpfr_cmp_si(raw, value).signum()) }

    /// The exact value of this binary number as a rational.
    var exactRational: GMPRational { .make { mpfr_get_q($0, raw) } }

    /// The value rounded to nearest (ties away from zero) with `digits` significant decimal
    /// digits: the digit string and the exponent of its first digit (x = d.ddd × 10^e).
    func roundedDigits(_ digits: Int) -> (digits: String, exponent: Int) {
        // MPFR's round-to-nearest breaks ties to even and mpfr_get_str has no ties-away mode.
        // A tie is a value with exactly digits + 1 significant digits, the last one 5: then
        // truncating and rounding away from zero to digits + 1 digits agree.
        let truncated = decimalDigits(digits + 1, MPFR_RNDZ)
        if truncated.digits.last == "5", decimalDigits(digits + 1, MPFR_RNDA) == truncated {
            return decimalDigits(digits, MPFR_RNDA)
        }
        return decimalDigits(digits, MPFR_RNDN)
    }

    private func decimalDigits(_ digits: Int, _ mode: mpfr_rnd_t) -> (digits: String, exponent: Int) {
        var exponent: mpfr_exp_t = 0
        guard let text = mpfr_get_str(nil, &exponent, 10, digits, raw, mode) else { return ("0", 0) }
        defer { mpfr_free_str(text) }
        var string = String(cString: text)
        if string.hasPrefix("-") { string.removeFirst() }
        return (string, Int(exponent) - 1)
    }

    // MARK: Operations (each returns a new number at working precision)

    // Each operation records itself in the result's recipe (nil when an operand has none).

    func applying(_ op: RealExpression.Binary, _ other: MPFRNumber) -> MPFRNumber {
        let recipe = recipe.flatMap { a in other.recipe.flatMap { b in RealExpression(.binary(op, a, b)) } }
        return .make(recipe: recipe) { r, mode in _ = Self.function(op)(r, raw, other.raw, mode) }
    }

    func applying(_ op: RealExpression.Unary) -> MPFRNumber {
        let recipe = recipe.flatMap { RealExpression(.unary(op, $0)) }
        return .make(recipe: recipe) { r, mode in _ = Self.function(op)(r, raw, mode) }
    }

    /// Trigonometry in units where a full turn is `turn` (360 for degrees), and k-th roots.
    func applying(_ op: RealExpression.Turned, turn: UInt) -> MPFRNumber {
        let recipe = recipe.flatMap { RealExpression(.turned(op, turn, $0)) }
        return .make(recipe: recipe) { r, mode in _ = Self.function(op)(r, raw, turn, mode) }
    }

    static let add = RealExpression.Binary.add
    static let subtract = RealExpression.Binary.subtract
    static let multiply = RealExpression.Binary.multiply
    static let divide = RealExpression.Binary.divide
    static let fmod = RealExpression.Binary.fmod
    static let power = RealExpression.Binary.power
    static let negate = RealExpression.Unary.negate
    static let log = RealExpression.Unary.log
    static let log10 = RealExpression.Unary.log10
    static let exp = RealExpression.Unary.exp
    static let sin = RealExpression.Unary.sin
    static let cos = RealExpression.Unary.cos
    static let tan = RealExpression.Unary.tan
    static let asin = RealExpression.Unary.asin
    static let acos = RealExpression.Unary.acos
    static let atan = RealExpression.Unary.atan
    static let sinTurn = RealExpression.Turned.sin
    static let cosTurn = RealExpression.Turned.cos
    static let tanTurn = RealExpression.Turned.tan
    static let asinTurn = RealExpression.Turned.asin
    static let acosTurn = RealExpression.Turned.acos
    static let atanTurn = RealExpression.Turned.atan
    static let rootN = RealExpression.Turned.root

    typealias BinaryFunction = (UnsafeMutablePointer<__mpfr_struct>, UnsafePointer<__mpfr_struct>, UnsafePointer<__mpfr_struct>, mpfr_rnd_t) -> Int32
    typealias UnaryFunction = (UnsafeMutablePointer<__mpfr_struct>, UnsafePointer<__mpfr_struct>, mpfr_rnd_t) -> Int32
    typealias TurnedFunction = (UnsafeMutablePointer<__mpfr_struct>, UnsafePointer<__mpfr_struct>, UInt, mpfr_rnd_t) -> Int32

    static func function(_ op: RealExpression.Binary) -> BinaryFunction {
        switch op {
        case .add: mpfr_add
        case .subtract: mpfr_sub
        case .multiply: mpfr_mul
        case .divide: mpfr_div
        case .fmod: mpfr_fmod
        case .power: mpfr_pow
        }
    }

    static func function(_ op: RealExpression.Unary) -> UnaryFunction {
        switch op {
        case .negate: mpfr_neg
        case .log: mpfr_log
        case .log10: mpfr_log10
        case .exp: mpfr_exp
        case .sin: mpfr_sin
        case .cos: mpfr_cos
        case .tan: mpfr_tan
        case .asin: mpfr_asin
        case .acos: mpfr_acos
        case .atan: mpfr_atan
        }
    }

    static func function(_ op: RealExpression.Turned) -> TurnedFunction {
        switch op {
        case .sin: mpfr_sinu
        case .cos: mpfr_cosu
        case .tan: mpfr_tanu
        case .asin: mpfr_asinu
        case .acos: mpfr_acosu
        case .atan: mpfr_atanu
        case .root: mpfr_rootn_ui
        }
    }
}
