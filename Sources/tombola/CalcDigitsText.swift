import CalculatorEngine

/// The text `tombola calc --digits N` prints for a value: sign, integer part, point and N
/// digits (fetched in requests of at most `CalculatorValue.maximumCount`), or what stops them.
enum CalcDigitsText {
    static let maximumDigits = CalculatorValue.maximumPosition

    static func text(of value: CalculatorValue, digits: Int, markRepeat: Bool) -> String {
        var fraction = ""
        var first: CalculatorDigits?
        var position = 1
        while position <= digits {
            let count = Swift.min(CalculatorValue.maximumCount, digits - position + 1)
            let part: CalculatorDigits
            do {
                part = try value.digits(position: position, count: count)
            } catch {
                return "digits unavailable (\(error.rawValue))"
            }
            if part.status == .undecidable {
                return "undecidable: the digits could not be proven within the precision limit"
            }
            if first == nil { first = part }
            fraction += part.digits
            position += count
        }
        guard let first else { return "" }
        let sign = first.negative ? "-" : ""
        if markRepeat, let start = first.repeatStart, let length = first.repeatLength,
           let whole = try? value.digits(position: 1, count: Swift.min(CalculatorValue.maximumCount, start + length - 1)),
           whole.digits.count == start + length - 1 {
            let head = whole.digits.prefix(start - 1)
            let period = whole.digits.dropFirst(start - 1)
            return "\(sign)\(first.integer).\(head)(\(period))"
        }
        let zero = first.status == .zero ? " (exactly zero)" : ""
        let identified = first.identified ? " (identified as exact, not proven)" : ""
        return "\(sign)\(first.integer).\(fraction)\(zero)\(identified)"
    }
}
