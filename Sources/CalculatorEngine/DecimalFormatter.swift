/// Turns values into the protocol's display strings.
///
/// The value is correctly rounded to 16 significant digits (ties to even on the
/// exact value), trailing zeros are removed, and the notation is plain when the
/// rounded value satisfies 1e-9 ≤ |x| < 1e16, else `d.ddde±N` (`1.5e+16`, `2.5e-12`).
/// No digit grouping; never `-0`.
enum DecimalFormatter {
    static let significantDigits = 16

    static func string(for number: CalcNumber) -> String {
        if number.isZero { return "0" }
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
        var trimmed = Substring(digits)
        while trimmed.count > 1, trimmed.last == "0" { trimmed.removeLast() }
        var text: String
        if (-9...15).contains(exponent) {
            if exponent >= 0 {
                let integerCount = exponent + 1
                var integer = String(trimmed.prefix(integerCount))
                integer += String(repeating: "0", count: integerCount - integer.count)
                let fraction = trimmed.dropFirst(integerCount)
                text = fraction.isEmpty ? integer : integer + "." + fraction
            } else {
                text = "0." + String(repeating: "0", count: -exponent - 1) + trimmed
            }
        } else {
            let rest = trimmed.dropFirst()
            text = String(trimmed.prefix(1)) + (rest.isEmpty ? "" : "." + rest)
            text += (exponent < 0 ? "e-" : "e+") + String(exponent.magnitude)
        }
        return negative ? "-" + text : text
    }
}
