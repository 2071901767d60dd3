import Posix

/// Signal handling for the `tombola` executable (which sees only `App`).
public enum ProcessSignals {
    /// Blocks `signals` for this thread and every thread started later; ignores SIGPIPE.
    public static func block(_ signals: [Int32]) {
        Signals.ignoreSIGPIPE()
        Signals.block(signals)
    }

    /// Waits for one of the blocked `signals` and returns it.
    public static func wait(for signals: [Int32]) -> Int32 { Signals.wait(for: signals) }

    /// Waits up to `timeout` for one of the blocked `signals`; nil when none came.
    public static func wait(for signals: [Int32], timeout: Duration) -> Int32? { Signals.wait(for: signals, timeout: timeout) }
}
