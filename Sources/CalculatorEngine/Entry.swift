/// The number being typed, kept as typed (`13.`, `1.50`, `2e-5`) until it is used.
///
/// At most 16 significant digits (a lone leading `0` does not count), one decimal
/// point, leading zeros collapse, and after `EE` up to four exponent digits.
struct Entry: Sendable, Equatable {
    static let maximumDigits = 16
    static let maximumExponentDigits = 4

    var negative = false
    var integerDigits = "0"
    /// nil until the decimal point is typed.
    var fractionDigits: String?
    /// nil until `EE`.
    var exponentDigits: String?
    var exponentNegative = false

    init() {}

    /// An entry reading like a plain display string (`-12.5`), used when `EE` follows a result.
    init?(plain text: String) {
        var rest = Substring(text)
        if rest.hasPrefix("-") {
            negative = true
            rest.removeFirst()
        }
        guard !rest.isEmpty, rest.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else { return nil }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        integerDigits = String(parts[0])
        fractionDigits = parts.count > 1 ? String(parts[1]) : nil
        guard digitCount <= Self.maximumDigits else { return nil }
    }

    var digitCount: Int { (integerDigits == "0" ? 0 : integerDigits.count) + (fractionDigits?.count ?? 0) }

    var isZero: Bool {
        integerDigits == "0" && (fractionDigits ?? "").allSatisfy { $0 == "0" }
    }

    var text: String {
        var text = (negative ? "-" : "") + integerDigits
        if let fraction = fractionDigits { text += "." + fraction }
        if let exponent = exponentDigits { text += (exponentNegative ? "e-" : "e+") + exponent }
        return text
    }

    mutating func append(digit: Int) {
        let character = String(digit)
        if let exponent = exponentDigits {
            if exponent == "0" {
                exponentDigits = character
            } else if exponent.count < Self.maximumExponentDigits {
                exponentDigits = exponent + character
            }
            return
        }
        guard digitCount < Self.maximumDigits else { return }
        if let fraction = fractionDigits {
            fractionDigits = fraction + character
        } else if integerDigits == "0" {
            integerDigits = character
        } else {
            integerDigits += character
        }
    }

    mutating func appendPoint() {
        if exponentDigits == nil, fractionDigits == nil { fractionDigits = "" }
    }

    mutating func startExponent() {
        if exponentDigits == nil { exponentDigits = "0" }
    }

    /// `neg` while typing: flips the exponent's sign after `EE`, else the mantissa's, even
    /// while its value is still zero (`0 . neg 5` types `-0.5`, as a phone calculator does).
    mutating func toggleSign() {
        if exponentDigits != nil {
            exponentNegative.toggle()
        } else {
            negative.toggle()
        }
    }

    mutating func removeLast() {
        if let exponent = exponentDigits {
            if exponent.count > 1 {
                exponentDigits = String(exponent.dropLast())
            } else if exponent != "0" {
                exponentDigits = "0"
            } else {
                exponentDigits = nil
                exponentNegative = false
            }
        } else if let fraction = fractionDigits {
            fractionDigits = fraction.isEmpty ? nil : String(fraction.dropLast())
        } else {
            integerDigits = String(integerDigits.dropLast())
            if integerDigits.isEmpty { integerDigits = "0" }
        }
        if negative, isZero, fractionDigits == nil { negative = false }
    }

    /// The exact value typed; `overflow` beyond the calculator's range.
    func value() throws(CalculatorError) -> CalcNumber {
        let fraction = fractionDigits ?? ""
        let mantissa = GMPRational.fraction(
            numerator: (negative ? "-" : "") + integerDigits + fraction,
            denominator: "1" + String(repeating: "0", count: fraction.count))
        var exponent = Int(exponentDigits ?? "0") ?? 0
        if exponentNegative { exponent = -exponent }
        if mantissa.isZero { return .zero }
        return try .checked(exponent == 0 ? mantissa : mantissa.multiplying(.powerOfTen(exponent)))
    }
}
