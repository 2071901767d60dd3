/// Why the calculator shows an error instead of a number. The raw values are the
/// protocol's stable codes; the words users read live in `App` and `Public`.
public enum CalculatorError: String, Sendable, Error, CaseIterable {
    /// x ÷ 0 with x ≠ 0, 1/0, 0 raised to a negative power.
    case divideByZero = "divide_by_zero"
    /// 0 ÷ 0, x mod 0, tan at an odd multiple of 90°.
    case undefined
    /// Outside a function's domain: √ or ln of a negative, asin 2, fact 2.5, an even root
    /// of a negative, a negative number raised to an inexact power.
    case invalidInput = "invalid_input"
    /// A result or entry with |x| ≥ 1e10000 or 0 < |x| < 1e-10000, or a factorial above 3248!.
    case overflow
}

/// The two keypads: how binary operators combine.
public enum CalculatorMode: String, Sendable, CaseIterable {
    /// Immediate execution: each operator applies the pending one (`2 + 3 * 4 =` → 20).
    case basic
    /// Precedence, parentheses and right-associative `^` (`2 + 3 * 4 =` → 14).
    case scientific
}

/// The unit trigonometric keys read and write angles in; radians by default.
public enum AngleUnit: String, Sendable, CaseIterable {
    case degrees = "deg"
    case radians = "rad"
}
