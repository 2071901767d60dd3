import Server
import Glibc

/// Operator-facing lines on stderr for draw problems (storage failures). Never a key: callers
/// pass codes, actions and `StorageError` descriptions, which carry no bound values.
enum DrawLog {
    static func error(_ text: String) {
        let bytes = Array(("tombola: " + text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
