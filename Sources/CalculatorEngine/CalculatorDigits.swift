/// Digits of a result's decimal expansion past what the display shows
/// (`CalculatorValue.digits(position:count:)`). Digits are truncated, never rounded, so a
/// digit once shown never changes when more are asked for.
public struct CalculatorDigits: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// `negative`, `integer` and `digits` are proven.
        case digits
        /// The value is exactly zero: every digit is 0.
        case zero
        /// Neither the sign nor the digits could be decided within the precision limit (a value
        /// that may be exactly 0, or exactly on a digit boundary, such as an inexactly computed 0.5).
        case undecidable
    }

    public var status: Status
    public var negative: Bool
    /// The integer part of |x| in decimal ("0" for |x| < 1; empty unless `status` is `.digits`).
    public var integer: String
    /// The position of the first digit of `digits` (1 = the first digit after the point).
    public var position: Int
    /// `count` digits after the point from `position` (empty when `undecidable`).
    public var digits: String
    /// Whether the value is a rational known exactly (its expansion is computed, not approximated).
    public var exact: Bool
    /// For an exact value whose expansion ends, the position of its last non-zero digit (0 for an integer).
    public var terminatesAt: Int?
    /// For an exact value whose expansion repeats forever, where the period starts and its length
    /// (1/7 → start 1, length 6: 0.(142857)), when the period is at most `periodSearchLimit` digits.
    public var repeatStart: Int?
    public var repeatLength: Int?
    /// Bits of the last interval evaluation (0 for an exact value).
    public var precision: Int
    /// Whether the digits are those of an exact value the calculator identified from an inexact
    /// computation (`sqrt 2 sq` is 2, `sin(pi)` is 0) and the recomputation could not tell it apart
    /// from the true value within the precision limit. When it can, the true value's digits are
    /// given instead, with `exact` false.
    public var identified = false
}

/// Why digits cannot be given at all.
public enum CalculatorDigitsError: String, Error, Sendable {
    /// The request is outside the limits (`position` ≥ 1, `count` 1…`maximumCount`, last
    /// position ≤ `maximumPosition`).
    case outOfRange = "out_of_range"
    /// The calculator shows an error, not a number.
    case noResult = "no_result"
    /// The value was built from more than `RealExpression.maximumSize` inexact operations, so
    /// its recipe was not kept.
    case unavailable = "digits_unavailable"
    /// The recomputation would cost more than the per-request work cap (a large recipe at a
    /// far position).
    case tooCostly = "too_costly"
}

/// The value a calculator holds: the result shown, or the number being typed.
public struct CalculatorValue: Sendable {
    let number: CalcNumber

    /// Digits after the point that one request may ask for.
    public static let maximumCount = 1_000
    /// The farthest digit after the point that can be asked for (the documented limit).
    public static let maximumPosition = 20_000
    /// Longest period `repeatLength` reports; a longer one is reported as unknown.
    public static let periodSearchLimit = 20_000
    /// The most work one request may take: recipe nodes × bits of precision (about 1,000 nodes
    /// at 1,000 digits, 90 at 20,000; 90 nested sines at position 20,000 take a few seconds).
    public static let workLimit = 6_000_000

    /// Whether the value is known exactly (a rational).
    public var isExact: Bool { number.isExact }
}
