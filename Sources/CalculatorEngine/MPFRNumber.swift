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
        _ body: (UnsafeMutablePointer<__mpfr_struct>, mpfr_rnd_t) -> Void
    ) -> MPFRNumber {
        let result = MPFRNumber(precision: precision)
        mpfr_clear_flags()
        body(result.raw, MPFR_RNDN)
        result.underflowed = mpfr_underflow_p() != 0
        return result
    }

    /// `q` rounded to `precision` bits.
    static func from(_ q: GMPRational, precision: Int = workingPrecision) -> MPFRNumber {
        make(precision: precision) { r, mode in _ = mpfr_set_q(r, q.raw, mode) }
    }

    static let pi = make { r, mode in _ = mpfr_const_pi(r, mode) }
    static let e = make { r, mode in
        _ = mpfr_set_ui(r, 1, mode)
        _ = mpfr_exp(r, r, mode)
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

    typealias Binary = @Sendable (UnsafeMutablePointer<__mpfr_struct>, UnsafePointer<__mpfr_struct>, UnsafePointer<__mpfr_struct>, mpfr_rnd_t) -> Int32
    typealias Unary = @Sendable (UnsafeMutablePointer<__mpfr_struct>, UnsafePointer<__mpfr_struct>, mpfr_rnd_t) -> Int32

    func applying(_ op: Binary, _ other: MPFRNumber) -> MPFRNumber {
        .make { r, mode in _ = op(r, raw, other.raw, mode) }
    }

    func applying(_ op: Unary) -> MPFRNumber {
        .make { r, mode in _ = op(r, raw, mode) }
    }

    /// Trigonometry in units where a full turn is `turn` (360 for degrees).
    func applying(_ op: Turned, turn: UInt) -> MPFRNumber {
        .make { r, mode in _ = op(r, raw, turn, mode) }
    }

    static let add: Binary = { mpfr_add($0, $1, $2, $3) }
    static let subtract: Binary = { mpfr_sub($0, $1, $2, $3) }
    static let multiply: Binary = { mpfr_mul($0, $1, $2, $3) }
    static let divide: Binary = { mpfr_div($0, $1, $2, $3) }
    static let fmod: Binary = { mpfr_fmod($0, $1, $2, $3) }
    static let power: Binary = { mpfr_pow($0, $1, $2, $3) }

    static let negate: Unary = { mpfr_neg($0, $1, $2) }
    static let log: Unary = { mpfr_log($0, $1, $2) }
    static let log10: Unary = { mpfr_log10($0, $1, $2) }
    static let exp: Unary = { mpfr_exp($0, $1, $2) }
    static let sin: Unary = { mpfr_sin($0, $1, $2) }
    static let cos: Unary = { mpfr_cos($0, $1, $2) }
    static let tan: Unary = { mpfr_tan($0, $1, $2) }
    static let asin: Unary = { mpfr_asin($0, $1, $2) }
    static let acos: Unary = { mpfr_acos($0, $1, $2) }
    static let atan: Unary = { mpfr_atan($0, $1, $2) }

    typealias Turned = @Sendable (UnsafeMutablePointer<__mpfr_struct>, UnsafePointer<__mpfr_struct>, UInt, mpfr_rnd_t) -> Int32
    static let sinTurn: Turned = { mpfr_sinu($0, $1, $2, $3) }
    static let cosTurn: Turned = { mpfr_cosu($0, $1, $2, $3) }
    static let tanTurn: Turned = { mpfr_tanu($0, $1, $2, $3) }
    static let asinTurn: Turned = { mpfr_asinu($0, $1, $2, $3) }
    static let acosTurn: Turned = { mpfr_acosu($0, $1, $2, $3) }
    static let rootN: Turned = { mpfr_rootn_ui($0, $1, $2, $3) }
    static let atanTurn: Turned = { mpfr_atanu($0, $1, $2, $3) }
}
