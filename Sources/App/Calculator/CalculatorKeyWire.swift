import Server
import CalculatorEngine

/// The protocol's key strings (docs/PROTOCOL.md) and the English words for calculator
/// error codes. The engine never sees a wire string; pages translate codes themselves.
public enum CalculatorKeyWire {
    /// Every fixed wire key, in keypad order; `recall:<n>` is parsed separately.
    public static let keys: [(wire: String, key: CalculatorKey)] = [
        ("0", .digit(0)), ("1", .digit(1)), ("2", .digit(2)), ("3", .digit(3)), ("4", .digit(4)),
        ("5", .digit(5)), ("6", .digit(6)), ("7", .digit(7)), ("8", .digit(8)), ("9", .digit(9)),
        (".", .point), ("neg", .negate),
        ("+", .add), ("-", .subtract), ("*", .multiply), ("/", .divide), ("=", .equals),
        ("C", .clear), ("CE", .clearEntry), ("back", .backspace), ("%", .percent),
        ("sqrt", .sqrt), ("sq", .square), ("inv", .reciprocal),
        ("MC", .memoryClear), ("MR", .memoryRecall), ("MS", .memoryStore), ("M+", .memoryAdd), ("M-", .memorySubtract),
        ("(", .openParen), (")", .closeParen), ("^", .power), ("EE", .exponentEntry), ("mod", .mod),
        ("sin", .sin), ("cos", .cos), ("tan", .tan), ("asin", .asin), ("acos", .acos), ("atan", .atan),
        ("ln", .ln), ("log", .log), ("exp", .exp), ("pow10", .pow10),
        ("cube", .cube), ("cbrt", .cbrt), ("root", .root), ("fact", .factorial), ("abs", .abs),
        ("pi", .pi), ("e", .e),
    ]

    private static let byWire: [String: CalculatorKey] = Dictionary(uniqueKeysWithValues: keys.map { ($0.wire, $0.key) })

    /// The key for a wire string, or nil for an unknown key (answered with `unknown_key`).
    /// `recall:<n>` takes a decimal index 0…9999 without sign or leading zeros.
    public static func key(for wire: String) -> CalculatorKey? {
        if let key = byWire[wire] { return key }
        guard wire.hasPrefix("recall:") else { return nil }
        let digits = wire.dropFirst("recall:".count)
        guard (1...4).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              digits == "0" || !digits.hasPrefix("0"), let index = Int(digits) else { return nil }
        return .recallHistory(index)
    }

    /// The wire string for a key (the inverse of `key(for:)`).
    public static func wire(for key: CalculatorKey) -> String {
        if case .recallHistory(let index) = key { return "recall:\(index)" }
        return keys.first { $0.key == key }?.wire ?? ""
    }

    /// English text for an error code; the `message` field of a `display` frame.
    public static func message(for error: CalculatorError) -> String {
        switch error {
        case .divideByZero: "Cannot divide by zero"
        case .undefined: "Result is undefined"
        case .invalidInput: "Invalid input"
        case .overflow: "Overflow"
        }
    }

    /// Wire names for modes and angle units (`"basic"`, `"scientific"`, `"deg"`, `"rad"`).
    public static func mode(for wire: String) -> CalculatorMode? { CalculatorMode(rawValue: wire) }
    public static func angle(for wire: String) -> AngleUnit? { AngleUnit(rawValue: wire) }
}
