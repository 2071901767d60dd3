import CGMP

/// An exact rational number owning one GMP `mpq_t`; the only type that calls GMP.
///
/// Instances are immutable once an initializer or factory returns, so sharing one
/// between values (and threads) is safe: every operation builds a new instance.
final class GMPRational: @unchecked Sendable {
    // @unchecked: the wrapped mpq_t is written only while the instance is being built.
    let raw: UnsafeMutablePointer<__mpq_struct>

    private init() {
        raw = .allocate(capacity: 1)
        __gmpq_init(raw)
    }

    deinit {
        __gmpq_clear(raw)
        raw.deallocate()
    }

    private var num: UnsafeMutablePointer<__mpz_struct> { numerator(of: raw) }
    private var den: UnsafeMutablePointer<__mpz_struct> { denominator(of: raw) }

    /// Builds a rational with `body` writing into a fresh, canonicalized `mpq_t`.
    static func make(_ body: (UnsafeMutablePointer<__mpq_struct>) -> Void) -> GMPRational {
        let result = GMPRational()
        body(result.raw)
        return result
    }

    convenience init(_ value: Int) {
        self.init()
        __gmpq_set_si(raw, value, 1)
    }

    /// `numerator / denominator`, with decimal digit strings (an optional leading `-`).
    static func fraction(numerator: String, denominator: String) -> GMPRational {
        make { q in
            _ = __gmpz_set_str(CalculatorEngine.numerator(of: q), numerator, 10)
            _ = __gmpz_set_str(CalculatorEngine.denominator(of: q), denominator, 10)
            __gmpq_canonicalize(q)
        }
    }

    /// `10^exponent` exactly (`exponent` may be negative).
    static func powerOfTen(_ exponent: Int) -> GMPRational {
        make { q in
            let n = numerator(of: q)
            let d = denominator(of: q)
            __gmpz_ui_pow_ui(exponent >= 0 ? n : d, 10, UInt(exponent.magnitude))
            if exponent < 0 { __gmpz_set_ui(n, 1) }
        }
    }

    // MARK: Queries

    var sign: Int { Int(raw.pointee._mp_num._mp_size.signum()) }
    var isZero: Bool { sign == 0 }
    var isInteger: Bool { __gmpz_cmp_ui(den, 1) == 0 }
    var numeratorBits: Int { Int(__gmpz_sizeinbase(num, 2)) }
    var denominatorBits: Int { Int(__gmpz_sizeinbase(den, 2)) }

    /// A cheap estimate of log2|x|, within ±1 (x must not be zero).
    var roughLog2: Int { numeratorBits - denominatorBits }

    static func == (a: GMPRational, b: GMPRational) -> Bool { __gmpq_equal(a.raw, b.raw) != 0 }
    static func compare(_ a: GMPRational, _ b: GMPRational) -> Int { Int(__gmpq_cmp(a.raw, b.raw).signum()) }
    func compare(to value: Int) -> Int { Int(__gmpq_cmp_si(raw, value, 1).signum()) }
    /// Compares |self| with |other|.
    func compareMagnitude(_ other: GMPRational) -> Int { GMPRational.compare(abs(), other.abs()) }

    /// The value as a machine integer when it is an integer that fits.
    var intValue: Int? {
        guard isInteger, __gmpz_fits_slong_p(num) != 0 else { return nil }
        return __gmpz_get_si(num)
    }

    var numeratorString: String { Self.string(num) }
    var denominatorString: String { Self.string(den) }

    private static func string(_ z: UnsafeMutablePointer<__mpz_struct>) -> String {
        let count = __gmpz_sizeinbase(z, 10) + 2
        var buffer = [CChar](repeating: 0, count: count)
        __gmpz_get_str(&buffer, 10, z)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The numerator as an integer rational.
    var numeratorPart: GMPRational { .make { __gmpz_set(CalculatorEngine.numerator(of: $0), num) } }
    /// The denominator as an integer rational.
    var denominatorPart: GMPRational { .make { __gmpz_set(CalculatorEngine.numerator(of: $0), den) } }
    /// Whether the numerator is odd (for integers: whether the value is odd).
    var isOdd: Bool { __gmpz_tstbit(num, 0) == 1 }

    // MARK: Arithmetic

    func adding(_ b: GMPRational) -> GMPRational { .make { __gmpq_add($0, raw, b.raw) } }
    func subtracting(_ b: GMPRational) -> GMPRational { .make { __gmpq_sub($0, raw, b.raw) } }
    func multiplying(_ b: GMPRational) -> GMPRational { .make { __gmpq_mul($0, raw, b.raw) } }
    /// `self / b`; `b` must not be zero.
    func dividing(_ b: GMPRational) -> GMPRational { .make { __gmpq_div($0, raw, b.raw) } }
    func negated() -> GMPRational { .make { __gmpq_neg($0, raw) } }
    func abs() -> GMPRational { .make { __gmpq_abs($0, raw) } }
    /// `1 / self`; `self` must not be zero.
    func inverted() -> GMPRational { .make { __gmpq_inv($0, raw) } }

    /// The integer part, rounded toward zero.
    func truncated() -> GMPRational {
        .make { q in
            let n = numerator(of: q)
            __gmpz_tdiv_q(n, num, den)
        }
    }

    /// The largest integer not above the value.
    func floored() -> GMPRational {
        .make { q in
            let n = numerator(of: q)
            __gmpz_fdiv_q(n, num, den)
        }
    }

    /// `self ^ exponent` exactly for a non-negative machine exponent.
    func raised(to exponent: UInt) -> GMPRational {
        .make { q in
            let n = numerator(of: q)
            let d = denominator(of: q)
            __gmpz_pow_ui(n, num, exponent)
            __gmpz_pow_ui(d, den, exponent)
        }
    }

    /// The exact `k`-th root of a non-negative value when numerator and denominator
    /// are both perfect `k`-th powers, else nil.
    func exactRoot(_ k: UInt) -> GMPRational? {
        precondition(sign >= 0)
        var exact = true
        let result = GMPRational.make { q in
            let n = numerator(of: q)
            let d = denominator(of: q)
            exact = __gmpz_root(n, num, k) != 0 && __gmpz_root(d, den, k) != 0
        }
        return exact ? result : nil
    }

    /// `n!` for a machine integer.
    static func factorial(_ n: UInt) -> GMPRational {
        make { q in
            __gmpz_fac_ui(numerator(of: q), n)
        }
    }

    /// The integer nearest to `self * 10^shift`, ties away from zero, as decimal digits of
    /// its magnitude.
    func roundedDigits(shiftingBy shift: Int) -> String {
        let scaled = shift == 0 ? self.abs() : self.abs().multiplying(.powerOfTen(shift))
        let parts = GMPRational.make { _ in }
        let q = parts.num
        let r = parts.den
        __gmpz_fdiv_qr(q, r, scaled.num, scaled.den)
        // Compare 2r with the denominator: half or more rounds up (ties away from zero, on |x|).
        __gmpz_mul_2exp(r, r, 1)
        if __gmpz_cmp(r, scaled.den) >= 0 {
            __gmpz_add_ui(q, q, 1)
        }
        return Self.string(q)
    }

    /// floor(log10|x|) exactly (x must not be zero).
    var decimalExponent: Int {
        let magnitude = abs()
        // log10(2) ≈ 0.30103; the estimate is off by at most one either way.
        var estimate = Int((Double(roughLog2) * 0.30102999566398120).rounded(.down))
        while GMPRational.compare(magnitude, .powerOfTen(estimate)) < 0 { estimate -= 1 }
        while GMPRational.compare(magnitude, .powerOfTen(estimate + 1)) >= 0 { estimate += 1 }
        return estimate
    }
}

/// The numerator `mpz_t` inside an `mpq_t` (GMP's `mpq_numref`).
func numerator(of q: UnsafeMutablePointer<__mpq_struct>) -> UnsafeMutablePointer<__mpz_struct> {
    UnsafeMutableRawPointer(q).advanced(by: MemoryLayout<__mpq_struct>.offset(of: \__mpq_struct._mp_num)!)
        .assumingMemoryBound(to: __mpz_struct.self)
}

/// The denominator `mpz_t` inside an `mpq_t` (GMP's `mpq_denref`).
func denominator(of q: UnsafeMutablePointer<__mpq_struct>) -> UnsafeMutablePointer<__mpz_struct> {
    UnsafeMutableRawPointer(q).advanced(by: MemoryLayout<__mpq_struct>.offset(of: \__mpq_struct._mp_den)!)
        .assumingMemoryBound(to: __mpz_struct.self)
}
