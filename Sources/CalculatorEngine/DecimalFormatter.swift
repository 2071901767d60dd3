/// Turns values into the protocol's display strings.
///
/// An exact integer with at most `integerDigits` (20) digits is shown in full (2^64 →
/// `18446744073709551616`, 20! → `2432902008176640000`). Any other value is correctly
/// rounded to 16 significant digits (a tie on the exact value rounds half away from zero,
/// as hand calculators do), trailing zeros are removed, and the notation is plain when the
/// rounded value satisfies 1e-9 ≤ |x| < 1e16, else `d.ddde±N` (`1.5e+16`, `2.5e-12`).
/// No digit grouping; never `-0`.
enum DecimalFormatter {
    static let significantDigits = 16
    /// The display's digit budget for whole numbers: an exact integer this long shows every digit.
    static let integerDigits = 20

    static func string(for number: CalcNumber) -> String {
        if number.isZero { return "0" }
        if let q = number.exact, q.isInteger, q.numeratorBits <= 67 {
            // 2^67 > 10^20 > 2^66: only integers below 2^67 can have 20 digits or fewer.
            let text = q.numeratorString
            if text.utf8.count - (q.sign < 0 ? 1 : 0) <= integerDigits { return text }
        }
        let digits: String
        let exponent: Int
        switch number.storage {
        case .exact(let q):
            var e = q.decimalExponent
            var d = q.roundedDigits(shiftingBy: significantDigits - 1 - e)
            if d.count > significantDigits {
                // Rounding carried into a new digit (9.99…95 → 10.00…0).
                e += 1
                d.removeLast()
            }
            (digits, exponent) = (d, e)
        case .approximate(let f):
            (digits, exponent) = f.roundedDigits(significantDigits)
        }
        return layout(negative: number.sign < 0, digits: digits, exponent: exponent)
    }

    /// Lays out significant `digits` (d₀d₁d₂…, x = d₀.d₁d₂… × 10^exponent).
    static func layout(negative: Bool, digits: String, exponent: Int) -> String {
        // Bytes rather than Characters: the digits are ASCII, and this runs for every key.
        var trimmed = Array(digits.utf8)[...]
        while trimmed.count > 1, trimmed.last == UInt8(ascii: "0") { trimmed.removeLast() }
        var text: [UInt8] = negative ? [UInt8(ascii: "-")] : []
        text.reserveCapacity(trimmed.count + 16)
        if (-9...15).contains(exponent) {
            if exponent >= 0 {
                let integerCount = exponent + 1
                let integer = trimmed.prefix(integerCount)
                text += integer
                text += repeatElement(UInt8(ascii: "0"), count: integerCount - integer.count)
                let fraction = trimmed.dropFirst(integerCount)
                if !fraction.isEmpty {
                    text.append(UInt8(ascii: "."))
                    text += fraction
                }
            } else {
                text += Array("0.".utf8)
                text += repeatElement(UInt8(ascii: "0"), count: -exponent - 1)
                text += trimmed
            }
        } else {
            text += trimmed.prefix(1)
            let rest = trimmed.dropFirst()
            if !rest.isEmpty {
                text.append(UInt8(ascii: "."))
                text += rest
            }
            text += Array((exponent < 0 ? "e-" : "e+").utf8)
            text += Array(String(exponent.magnitude).utf8)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
