/// An element of BLS12-381's base field Fp (p is 381 bits), in Montgomery form (x·R mod p,
/// R = 2^384) on six 64-bit limbs, least significant first. Not constant-time: it checks public
/// values (drand's signatures) and never touches a secret.
struct Fp: Equatable, Sendable {
    typealias Limbs = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    var limbs: Limbs

    init(limbs: Limbs) { self.limbs = limbs }

    static let zero = Fp(limbs: (0, 0, 0, 0, 0, 0))
    /// R mod p: 1 in Montgomery form.
    static let one = Fp(limbs: Fp.words(hex: "15f65ec3fa80e4935c071a97a256ec6d77ce5853705257455f48985753c758baebf4000bc40c0002760900000002fffd"))
    static let modulus: Limbs = Fp.words(hex: "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab")
    /// −p⁻¹ mod 2^64.
    static let inverse64: UInt64 = 0x89f3_fffc_fffc_fffd
    /// R² and R³ mod p (into Montgomery form; a 512-bit value's top part).
    static let r2 = Fp(limbs: Fp.words(hex: "11988fe592cae3aa9a793e85b519952d67eb88a9939d83c08de5476c4c95b6d50a76e6a609d104f1f4df1f341c341746"))
    static let r3 = Fp(limbs: Fp.words(hex: "0aa6346091755d4d2512d4356572472834c04e5e921e17619a53352a615e29dd315f831e03a7adf8ed48ac6bd94ca1e0"))

    static func == (a: Fp, b: Fp) -> Bool {
        a.limbs.0 == b.limbs.0 && a.limbs.1 == b.limbs.1 && a.limbs.2 == b.limbs.2
            && a.limbs.3 == b.limbs.3 && a.limbs.4 == b.limbs.4 && a.limbs.5 == b.limbs.5
    }

    var isZero: Bool { self == .zero }

    // MARK: Arithmetic

    /// x − p when x ≥ p (x < 2p).
    @inline(__always)
    static func reduced(_ x: Limbs) -> Fp {
        var b: UInt64 = 0
        let r0: UInt64, r1: UInt64, r2: UInt64, r3: UInt64, r4: UInt64, r5: UInt64
        (r0, b) = subBorrow(x.0, 0xb9feffffffffaaab, b)
        (r1, b) = subBorrow(x.1, 0x1eabfffeb153ffff, b)
        (r2, b) = subBorrow(x.2, 0x6730d2a0f6b0f624, b)
        (r3, b) = subBorrow(x.3, 0x64774b84f38512bf, b)
        (r4, b) = subBorrow(x.4, 0x4b1ba7b6434bacd7, b)
        (r5, b) = subBorrow(x.5, 0x1a0111ea397fe69a, b)
        return b == 0 ? Fp(limbs: (r0, r1, r2, r3, r4, r5)) : Fp(limbs: x)
    }

    @inline(__always)
    static func + (a: Fp, b: Fp) -> Fp {
        // p < 2^382, so a + b < 2^383 never carries out of the top limb.
        var c: UInt64 = 0
        let s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64, s4: UInt64, s5: UInt64
        (s0, c) = addCarry(a.limbs.0, b.limbs.0, c)
        (s1, c) = addCarry(a.limbs.1, b.limbs.1, c)
        (s2, c) = addCarry(a.limbs.2, b.limbs.2, c)
        (s3, c) = addCarry(a.limbs.3, b.limbs.3, c)
        (s4, c) = addCarry(a.limbs.4, b.limbs.4, c)
        (s5, c) = addCarry(a.limbs.5, b.limbs.5, c)
        return reduced((s0, s1, s2, s3, s4, s5))
    }

    @inline(__always)
    static func - (a: Fp, b: Fp) -> Fp {
        var borrow: UInt64 = 0
        var d0: UInt64, d1: UInt64, d2: UInt64, d3: UInt64, d4: UInt64, d5: UInt64
        (d0, borrow) = subBorrow(a.limbs.0, b.limbs.0, borrow)
        (d1, borrow) = subBorrow(a.limbs.1, b.limbs.1, borrow)
        (d2, borrow) = subBorrow(a.limbs.2, b.limbs.2, borrow)
        (d3, borrow) = subBorrow(a.limbs.3, b.limbs.3, borrow)
        (d4, borrow) = subBorrow(a.limbs.4, b.limbs.4, borrow)
        (d5, borrow) = subBorrow(a.limbs.5, b.limbs.5, borrow)
        if borrow != 0 {
            var c: UInt64 = 0
            (d0, c) = addCarry(d0, 0xb9feffffffffaaab, c)
            (d1, c) = addCarry(d1, 0x1eabfffeb153ffff, c)
            (d2, c) = addCarry(d2, 0x6730d2a0f6b0f624, c)
            (d3, c) = addCarry(d3, 0x64774b84f38512bf, c)
            (d4, c) = addCarry(d4, 0x4b1ba7b6434bacd7, c)
            (d5, c) = addCarry(d5, 0x1a0111ea397fe69a, c)
        }
        return Fp(limbs: (d0, d1, d2, d3, d4, d5))
    }


    static prefix func - (a: Fp) -> Fp { zero - a }

    /// Montgomery multiplication (CIOS, unrolled): a·b·R⁻¹ mod p. Also correct for any a < 2^384 and b < p.
    @inline(__always)
    static func * (a: Fp, b: Fp) -> Fp {
        let (a0, a1, a2, a3, a4, a5) = a.limbs
        var t0: UInt64 = 0, t1: UInt64 = 0, t2: UInt64 = 0, t3: UInt64 = 0, t4: UInt64 = 0, t5: UInt64 = 0, t6: UInt64 = 0, t7: UInt64 = 0
        var c: UInt64 = 0, m: UInt64 = 0
        // b[0]
        c = 0
        do {
            let bi = b.limbs.0
            (t0, c) = multiplyAdd(a0, bi, t0, c)
            (t1, c) = multiplyAdd(a1, bi, t1, c)
            (t2, c) = multiplyAdd(a2, bi, t2, c)
            (t3, c) = multiplyAdd(a3, bi, t3, c)
            (t4, c) = multiplyAdd(a4, bi, t4, c)
            (t5, c) = multiplyAdd(a5, bi, t5, c)
            (t6, t7) = addCarry(t6, c, 0)
            m = t0 &* inverse64
            (_, c) = multiplyAdd(m, 0xb9feffffffffaaab, t0, 0)
            (t0, c) = multiplyAdd(m, 0x1eabfffeb153ffff, t1, c)
            (t1, c) = multiplyAdd(m, 0x6730d2a0f6b0f624, t2, c)
            (t2, c) = multiplyAdd(m, 0x64774b84f38512bf, t3, c)
            (t3, c) = multiplyAdd(m, 0x4b1ba7b6434bacd7, t4, c)
            (t4, c) = multiplyAdd(m, 0x1a0111ea397fe69a, t5, c)
            var c2: UInt64
            (t5, c2) = addCarry(t6, c, 0)
            t6 = t7 &+ c2
        }
        // b[1]
        c = 0
        do {
            let bi = b.limbs.1
            (t0, c) = multiplyAdd(a0, bi, t0, c)
            (t1, c) = multiplyAdd(a1, bi, t1, c)
            (t2, c) = multiplyAdd(a2, bi, t2, c)
            (t3, c) = multiplyAdd(a3, bi, t3, c)
            (t4, c) = multiplyAdd(a4, bi, t4, c)
            (t5, c) = multiplyAdd(a5, bi, t5, c)
            (t6, t7) = addCarry(t6, c, 0)
            m = t0 &* inverse64
            (_, c) = multiplyAdd(m, 0xb9feffffffffaaab, t0, 0)
            (t0, c) = multiplyAdd(m, 0x1eabfffeb153ffff, t1, c)
            (t1, c) = multiplyAdd(m, 0x6730d2a0f6b0f624, t2, c)
            (t2, c) = multiplyAdd(m, 0x64774b84f38512bf, t3, c)
            (t3, c) = multiplyAdd(m, 0x4b1ba7b6434bacd7, t4, c)
            (t4, c) = multiplyAdd(m, 0x1a0111ea397fe69a, t5, c)
            var c2: UInt64
            (t5, c2) = addCarry(t6, c, 0)
            t6 = t7 &+ c2
        }
        // b[2]
        c = 0
        do {
            let bi = b.limbs.2
            (t0, c) = multiplyAdd(a0, bi, t0, c)
            (t1, c) = multiplyAdd(a1, bi, t1, c)
            (t2, c) = multiplyAdd(a2, bi, t2, c)
            (t3, c) = multiplyAdd(a3, bi, t3, c)
            (t4, c) = multiplyAdd(a4, bi, t4, c)
            (t5, c) = multiplyAdd(a5, bi, t5, c)
            (t6, t7) = addCarry(t6, c, 0)
            m = t0 &* inverse64
            (_, c) = multiplyAdd(m, 0xb9feffffffffaaab, t0, 0)
            (t0, c) = multiplyAdd(m, 0x1eabfffeb153ffff, t1, c)
            (t1, c) = multiplyAdd(m, 0x6730d2a0f6b0f624, t2, c)
            (t2, c) = multiplyAdd(m, 0x64774b84f38512bf, t3, c)
            (t3, c) = multiplyAdd(m, 0x4b1ba7b6434bacd7, t4, c)
            (t4, c) = multiplyAdd(m, 0x1a0111ea397fe69a, t5, c)
            var c2: UInt64
            (t5, c2) = addCarry(t6, c, 0)
            t6 = t7 &+ c2
        }
        // b[3]
        c = 0
        do {
            let bi = b.limbs.3
            (t0, c) = multiplyAdd(a0, bi, t0, c)
            (t1, c) = multiplyAdd(a1, bi, t1, c)
            (t2, c) = multiplyAdd(a2, bi, t2, c)
            (t3, c) = multiplyAdd(a3, bi, t3, c)
            (t4, c) = multiplyAdd(a4, bi, t4, c)
            (t5, c) = multiplyAdd(a5, bi, t5, c)
            (t6, t7) = addCarry(t6, c, 0)
            m = t0 &* inverse64
            (_, c) = multiplyAdd(m, 0xb9feffffffffaaab, t0, 0)
            (t0, c) = multiplyAdd(m, 0x1eabfffeb153ffff, t1, c)
            (t1, c) = multiplyAdd(m, 0x6730d2a0f6b0f624, t2, c)
            (t2, c) = multiplyAdd(m, 0x64774b84f38512bf, t3, c)
            (t3, c) = multiplyAdd(m, 0x4b1ba7b6434bacd7, t4, c)
            (t4, c) = multiplyAdd(m, 0x1a0111ea397fe69a, t5, c)
            var c2: UInt64
            (t5, c2) = addCarry(t6, c, 0)
            t6 = t7 &+ c2
        }
        // b[4]
        c = 0
        do {
            let bi = b.limbs.4
            (t0, c) = multiplyAdd(a0, bi, t0, c)
            (t1, c) = multiplyAdd(a1, bi, t1, c)
            (t2, c) = multiplyAdd(a2, bi, t2, c)
            (t3, c) = multiplyAdd(a3, bi, t3, c)
            (t4, c) = multiplyAdd(a4, bi, t4, c)
            (t5, c) = multiplyAdd(a5, bi, t5, c)
            (t6, t7) = addCarry(t6, c, 0)
            m = t0 &* inverse64
            (_, c) = multiplyAdd(m, 0xb9feffffffffaaab, t0, 0)
            (t0, c) = multiplyAdd(m, 0x1eabfffeb153ffff, t1, c)
            (t1, c) = multiplyAdd(m, 0x6730d2a0f6b0f624, t2, c)
            (t2, c) = multiplyAdd(m, 0x64774b84f38512bf, t3, c)
            (t3, c) = multiplyAdd(m, 0x4b1ba7b6434bacd7, t4, c)
            (t4, c) = multiplyAdd(m, 0x1a0111ea397fe69a, t5, c)
            var c2: UInt64
            (t5, c2) = addCarry(t6, c, 0)
            t6 = t7 &+ c2
        }
        // b[5]
        c = 0
        do {
            let bi = b.limbs.5
            (t0, c) = multiplyAdd(a0, bi, t0, c)
            (t1, c) = multiplyAdd(a1, bi, t1, c)
            (t2, c) = multiplyAdd(a2, bi, t2, c)
            (t3, c) = multiplyAdd(a3, bi, t3, c)
            (t4, c) = multiplyAdd(a4, bi, t4, c)
            (t5, c) = multiplyAdd(a5, bi, t5, c)
            (t6, t7) = addCarry(t6, c, 0)
            m = t0 &* inverse64
            (_, c) = multiplyAdd(m, 0xb9feffffffffaaab, t0, 0)
            (t0, c) = multiplyAdd(m, 0x1eabfffeb153ffff, t1, c)
            (t1, c) = multiplyAdd(m, 0x6730d2a0f6b0f624, t2, c)
            (t2, c) = multiplyAdd(m, 0x64774b84f38512bf, t3, c)
            (t3, c) = multiplyAdd(m, 0x4b1ba7b6434bacd7, t4, c)
            (t4, c) = multiplyAdd(m, 0x1a0111ea397fe69a, t5, c)
            var c2: UInt64
            (t5, c2) = addCarry(t6, c, 0)
            t6 = t7 &+ c2
        }
        _ = t6
        return reduced((t0, t1, t2, t3, t4, t5))
    }


    var squared: Fp { self * self }
    var doubled: Fp { self + self }

    /// self^e, e as 64-bit words, least significant first.
    func power(_ exponent: [UInt64]) -> Fp {
        var result = Fp.one
        for word in exponent.reversed() {
            for bit in (0..<64).reversed() {
                result = result.squared
                if (word >> UInt64(bit)) & 1 == 1 { result = result * self }
            }
        }
        return result
    }

    /// 1/self (0 for 0), by Fermat: self^(p−2).
    var inverse: Fp { power(Fp.pMinus2) }

    /// A square root when there is one (p ≡ 3 mod 4: self^((p+1)/4), checked).
    var squareRoot: Fp? {
        let s = power(Fp.pPlus1Over4)
        return s.squared == self ? s : nil
    }

    var isSquare: Bool { squareRoot != nil }

    // MARK: Encoding

    /// The canonical integer (out of Montgomery form), limbs least significant first.
    var canonical: Limbs {
        var plain = Fp.zero
        plain.limbs.0 = 1
        return (self * plain).limbs
    }

    /// RFC 9380's sgn0 for Fp: the canonical value's parity.
    var sign: Bool { canonical.0 & 1 == 1 }

    /// Is the canonical value larger than (p−1)/2 (the ZCash encoding's "lexicographically largest")?
    var isLexicographicallyLargest: Bool {
        let value = canonical
        let negated = (-self).canonical
        return Fp.compare(value, negated) > 0
    }

    /// From 48 big-endian bytes; nil when the value is not below p.
    init?(bigEndian bytes: ArraySlice<UInt8>) {
        guard bytes.count == 48 else { return nil }
        let raw = Fp.words(bytes: bytes)
        guard Fp.compare(raw, Fp.modulus) < 0 else { return nil }
        self = Fp(limbs: raw) * Fp.r2
    }

    /// A 64-byte big-endian value reduced mod p (RFC 9380's hash_to_field, L = 64).
    init(reducing bytes: [UInt8]) {
        precondition(bytes.count == 64)
        let high = Fp(limbs: Fp.words(bytes: [UInt8](repeating: 0, count: 32) + bytes[0..<16]))
        let low = Fp(limbs: Fp.words(bytes: bytes[16..<64]))
        // high·2^384 + low, each in Montgomery form: high·R³·R⁻¹ = (high·2^384)·R.
        self = high * Fp.r3 + low * Fp.r2
    }

    /// 48 big-endian bytes of the canonical value.
    var bigEndian: [UInt8] {
        let value = canonical
        var bytes = [UInt8]()
        bytes.reserveCapacity(48)
        Fp.withWords(value) { w in
            for i in (0..<6).reversed() {
                for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: w[i] >> UInt64(shift))) }
            }
        }
        return bytes
    }

    /// From a small integer.
    init(_ value: UInt64) {
        self = Fp(limbs: (value, 0, 0, 0, 0, 0)) * Fp.r2
    }

    /// From big-endian hex of a value below p (constants).
    init(hex: String) {
        self = Fp(limbs: Fp.words(hex: hex)) * Fp.r2
    }

    // MARK: Limb helpers

    static let pMinus2 = exponentWords(hex: "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaa9")
    static let pPlus1Over4 = exponentWords(hex: "0680447a8e5ff9a692c6e9ed90d2eb35d91dd2e13ce144afd9cc34a83dac3d8907aaffffac54ffffee7fbfffffffeaab")

    static func exponentWords(hex: String) -> [UInt64] {
        let w = words(hex: hex)
        return [w.0, w.1, w.2, w.3, w.4, w.5]
    }

    /// Big-endian hex (up to 96 digits) to limbs.
    static func words(hex: String) -> Limbs {
        let digits = Array(hex.utf8)
        var bytes = [UInt8](repeating: 0, count: 48)
        var index = 47
        var position = digits.count
        while position > 0 {
            let low = nibble(digits[position - 1])
            let high = position >= 2 ? nibble(digits[position - 2]) : 0
            bytes[index] = high << 4 | low
            index -= 1
            position -= 2
        }
        return words(bytes: bytes[...])
    }

    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: c - UInt8(ascii: "A") + 10
        }
    }

    /// 48 big-endian bytes to limbs.
    static func words<Bytes: Collection>(bytes: Bytes) -> Limbs where Bytes.Element == UInt8, Bytes.Index == Int {
        var limbs: Limbs = (0, 0, 0, 0, 0, 0)
        withWords(&limbs) { w in
            var i = 0
            for byte in bytes.reversed() {
                w[i / 8] |= UInt64(byte) << UInt64(8 * (i % 8))
                i += 1
            }
        }
        return limbs
    }

    /// −1, 0 or 1 as a < b, a == b, a > b.
    static func compare(_ a: Limbs, _ b: Limbs) -> Int {
        withWords(a) { a in
            withWords(b) { b in
                for i in (0..<6).reversed() where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
                return 0
            }
        }
    }

    @inline(__always)
    static func withWords<R>(_ limbs: Limbs, _ body: (UnsafeBufferPointer<UInt64>) -> R) -> R {
        withUnsafeBytes(of: limbs) { body($0.bindMemory(to: UInt64.self)) }
    }

    @inline(__always)
    static func withWords<R>(_ limbs: inout Limbs, _ body: (UnsafeMutableBufferPointer<UInt64>) -> R) -> R {
        withUnsafeMutableBytes(of: &limbs) { body($0.bindMemory(to: UInt64.self)) }
    }
}

/// a + b + carry → (sum, carry out).
@inline(__always)
func addCarry(_ a: UInt64, _ b: UInt64, _ carry: UInt64) -> (UInt64, UInt64) {
    let (s1, o1) = a.addingReportingOverflow(b)
    let (s2, o2) = s1.addingReportingOverflow(carry)
    return (s2, (o1 ? 1 : 0) &+ (o2 ? 1 : 0))
}

/// a − b − borrow → (difference, borrow out).
@inline(__always)
func subBorrow(_ a: UInt64, _ b: UInt64, _ borrow: UInt64) -> (UInt64, UInt64) {
    let (d1, o1) = a.subtractingReportingOverflow(b)
    let (d2, o2) = d1.subtractingReportingOverflow(borrow)
    return (d2, (o1 ? 1 : 0) &+ (o2 ? 1 : 0))
}

/// a·b + c + d → (low word, high word); never overflows 128 bits.
@inline(__always)
func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (UInt64, UInt64) {
    let (high, low) = a.multipliedFullWidth(by: b)
    let (s1, o1) = low.addingReportingOverflow(c)
    let (s2, o2) = s1.addingReportingOverflow(d)
    return (s2, high &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0))
}
