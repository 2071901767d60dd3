// libFuzzer target: random key sequences into Calculator.press (CalculatorEngine).
// Each input byte is a key (or a mode/angle switch). Invariants after every key:
// - no crash or hang (libFuzzer's -timeout catches slow keys);
// - an error shows an empty display, otherwise the display is a number as the protocol
//   writes it, at most 16 significant digits in the mantissa;
// - `C` always recovers to `0` without an error.
// Built by scripts/fuzz with the CalculatorEngine sources in the same module.

private let keys: [CalculatorKey] = [
    .digit(0), .digit(1), .digit(2), .digit(3), .digit(4), .digit(5), .digit(6), .digit(7), .digit(8), .digit(9),
    .point, .negate, .add, .subtract, .multiply, .divide, .equals, .clear, .clearEntry, .backspace, .percent,
    .sqrt, .square, .reciprocal, .memoryClear, .memoryRecall, .memoryStore, .memoryAdd, .memorySubtract,
    .openParen, .closeParen, .power, .exponentEntry, .mod, .sin, .cos, .tan, .asin, .acos, .atan,
    .ln, .log, .exp, .pow10, .cube, .cbrt, .root, .factorial, .abs, .pi, .e,
]

private func checkDisplay(_ display: CalculatorDisplay, after key: String) {
    if display.error != nil {
        precondition(display.display.isEmpty, "display \(display.display) beside an error after \(key)")
        return
    }
    let text = display.display
    precondition(!text.isEmpty && text.utf8.count <= 40, "display \(text.debugDescription) after \(key)")
    let allowed = Set("0123456789.-+e".utf8)
    precondition(text.utf8.allSatisfy { allowed.contains($0) }, "display \(text.debugDescription) after \(key)")
    let mantissa = text.split(separator: "e", maxSplits: 1).first ?? ""
    let significant = mantissa.filter(\.isNumber).drop(while: { $0 == "0" })
    precondition(significant.count <= 16, "too many digits: \(text) after \(key)")
    precondition(display.history.count <= Calculator.historyLimit, "history over its limit")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    #if APP_WIRE
    // The wire names App parses: a known name maps back to itself.
    let wire = String(decoding: UnsafeBufferPointer(start: data, count: min(size, 16)), as: UTF8.self)
    if let key = CalculatorKeyWire.key(for: wire) {
        precondition(CalculatorKeyWire.wire(for: key) == wire, "wire name \(wire.debugDescription) does not round-trip")
    }
    #endif
    var calculator = Calculator()
    for i in 0..<min(size, 512) {
        let byte = data[i]
        let display: CalculatorDisplay
        let name: String
        switch byte {
        case 0xF0: display = calculator.setMode(.basic); name = "mode basic"
        case 0xF1: display = calculator.setMode(.scientific); name = "mode scientific"
        case 0xF2: display = calculator.setAngle(.degrees); name = "deg"
        case 0xF3: display = calculator.setAngle(.radians); name = "rad"
        case 0xE0...0xEF: display = calculator.press(.recallHistory(Int(byte - 0xE0) * 7)); name = "recall"
        default:
            let key = keys[Int(byte) % keys.count]
            display = calculator.press(key)
            name = "\(key)"
        }
        checkDisplay(display, after: name)
    }
    let cleared = calculator.press(.clear)
    precondition(cleared.error == nil && cleared.display == "0", "C did not recover: \(cleared.display)")
    return 0
}
