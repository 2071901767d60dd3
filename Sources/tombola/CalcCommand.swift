import App
import CalculatorEngine

/// `tombola calc [--mode basic|scientific] [--deg|--rad] KEY…` presses wire keys and
/// prints the final display (`tombola calc 0.1 + 0.2 =` prints `0.3`); a multi-digit
/// argument such as `99999999` or `1.5` is pressed character by character.
/// `tombola calc --batch [--mode …] [--deg]` reads one space-separated key sequence per
/// line from stdin, runs each on a fresh calculator and prints one display per line.
/// `--digits N` prints the result with N digits after the point instead, every one proven
/// (truncated, not rounded: `tombola calc --digits 30 2 sqrt` prints
/// `1.414213562373095048801688724209`); with `--repeat` an exact result whose expansion
/// repeats prints its period in parentheses (`tombola calc --digits 10 --repeat 1 / 7 =` prints
/// `0.(142857)`). With `--batch`, each line gets its digits.
/// An error prints its English message; an unknown key exits with status 2.
enum CalcCommand {
    static let usage = """
        usage: tombola calc [--mode basic|scientific] [--deg|--rad] [--digits N [--repeat]] KEY…
               tombola calc --batch [--mode basic|scientific] [--deg|--rad] [--digits N [--repeat]]   (one key sequence a line on stdin)
        Keys are the calculator's wire keys (0-9 . + - * / = C CE back % sqrt sq inv ( ) ^ sin cos … pi e);
        a number such as 1.5 is pressed digit by digit. Example: tombola calc 0.1 + 0.2 =
        """

    static func run(_ arguments: [String]) -> Int32 {
        if CommandHelp.asked(arguments) { return CommandHelp.show(usage) }
        var mode = CalculatorMode.basic
        var angle = AngleUnit.radians
        var batch = false
        var digits: Int?
        var markRepeat = false
        var keys: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--batch": batch = true
            case "--deg": angle = .degrees
            case "--rad": angle = .radians
            case "--repeat": markRepeat = true
            case "--digits":
                index += 1
                guard index < arguments.count, let n = Int(arguments[index]), (1...CalcDigitsText.maximumDigits).contains(n) else {
                    printError("tombola calc: --digits takes a number of digits after the point, 1 to \(CalcDigitsText.maximumDigits)")
                    return 2
                }
                digits = n
            case "--mode":
                index += 1
                guard index < arguments.count, let parsed = CalculatorKeyWire.mode(for: arguments[index]) else {
                    printError("tombola calc: --mode takes basic or scientific")
                    return 2
                }
                mode = parsed
            default: keys.append(argument)
            }
            index += 1
        }
        if batch {
            while let line = readLine() {
                let words = line.split(separator: " ").map(String.init)
                print(evaluate(words, mode: mode, angle: angle, errorsAsCodes: true, digits: digits, markRepeat: markRepeat)
                      ?? "unknown_key")
            }
            return 0
        }
        guard let output = evaluate(keys, mode: mode, angle: angle, digits: digits, markRepeat: markRepeat) else {
            printError("tombola calc: unknown key\n\(usage)")
            return 2
        }
        print(output)
        return 0
    }

    /// The final display for `words`, or nil when a word is not a key.
    static func evaluate(
        _ words: [String], mode: CalculatorMode, angle: AngleUnit, errorsAsCodes: Bool = false,
        digits: Int? = nil, markRepeat: Bool = false
    ) -> String? {
        var calculator = Calculator()
        _ = calculator.setMode(mode)
        _ = calculator.setAngle(angle)
        var display = calculator.display
        for word in words {
            guard let keys = keys(for: word) else { return nil }
            for key in keys { display = calculator.press(key) }
        }
        if let error = display.error { return errorsAsCodes ? error.rawValue : CalculatorKeyWire.message(for: error) }
        if let digits, let value = calculator.value {
            return CalcDigitsText.text(of: value, digits: digits, markRepeat: markRepeat)
        }
        return display.display
    }

    /// A wire key, or a number typed digit by digit.
    private static func keys(for word: String) -> [CalculatorKey]? {
        if let key = CalculatorKeyWire.key(for: word) { return [key] }
        var keys: [CalculatorKey] = []
        for character in word {
            guard let key = CalculatorKeyWire.key(for: String(character)), character.isNumber || character == "." else {
                return nil
            }
            keys.append(key)
        }
        return keys.isEmpty ? nil : keys
    }

    private static func printError(_ text: String) {
        var standardError = StandardError()
        print(text, to: &standardError)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Writes to stderr for `print(_:to:)`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var bytes = Array(string.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
