import Server
import CalculatorEngine
import Locking
import Synchronization

/// One calculator session: a `Calculator` and the highest key `seq` applied to it.
/// Lives in a `CalcSessionStore`; the socket holding it drives it. Its mutex makes every
/// change one thread at a time even while a resume moves it between sockets and loops.
final class CalcSession: Sendable {
    /// 128 random bits as 32 lower-case hex digits.
    let id: String
    private let state = Lock(State())
    /// Whether any key, mode or angle was ever applied (an untouched session is not worth keeping).
    private let touched = Atomic<Bool>(false)

    private struct State: Sendable {
        var calculator = Calculator()
        var lastSeq = 0
    }

    init(id: String) {
        self.id = id
    }

    var isTouched: Bool { touched.load(ordering: .relaxed) }

    /// Presses `key` unless a key with `seq` or a later one was already applied; returns the
    /// display either way and whether the key was applied.
    func press(_ key: CalculatorKey, seq: Int) -> (display: CalculatorDisplay, applied: Bool) {
        let result = state.withLock { state -> (CalculatorDisplay, Bool) in
            guard seq > state.lastSeq else { return (state.calculator.display, false) }
            state.lastSeq = seq
            return (state.calculator.press(key), true)
        }
        if result.1 { touched.store(true, ordering: .relaxed) }
        return result
    }

    func setMode(_ mode: CalculatorMode) -> (display: CalculatorDisplay, lastSeq: Int) {
        touched.store(true, ordering: .relaxed)
        return state.withLock { ($0.calculator.setMode(mode), $0.lastSeq) }
    }

    func setAngle(_ angle: AngleUnit) -> (display: CalculatorDisplay, lastSeq: Int) {
        touched.store(true, ordering: .relaxed)
        return state.withLock { ($0.calculator.setAngle(angle), $0.lastSeq) }
    }

    /// The current display and the `seq` of the last applied key (0 before any).
    func snapshot() -> (display: CalculatorDisplay, lastSeq: Int) {
        state.withLock { ($0.calculator.display, $0.lastSeq) }
    }

    /// The value shown (nil while an error shows) and the `seq` of the last applied key.
    func value() -> (value: CalculatorValue?, lastSeq: Int) {
        state.withLock { ($0.calculator.value, $0.lastSeq) }
    }

    /// A fresh random id (the system generator reads the kernel's CSPRNG).
    static func makeID() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for _ in 0..<2 {
            let word = generator.next() as UInt64
            for shift in stride(from: 60, through: 0, by: -4) { out.append(digits[Int((word >> UInt64(shift)) & 0xF)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` looks like an id `makeID` makes.
    static func isWellFormedID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
