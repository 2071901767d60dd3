import JSON
import Glibc
import Synchronization

/// How the server writes its lines: `text` for people (the default), `json` for log
/// collectors (one object per line: `{"time":…,"level":…,"event":…,…}`).
public enum LogFormat: String, Sendable, CaseIterable {
    case text, json
}

/// The process's operator log. The format is set once at start-up (`Log.format = .json`);
/// every line goes out in one `write`, so lines from several threads never interleave.
/// Callers pass codes, addresses, paths and error descriptions, never a key.
public enum Log {
    private static let jsonFormat = Atomic<Bool>(false)

    public static var format: LogFormat {
        get { jsonFormat.load(ordering: .relaxed) ? .json : .text }
        set { jsonFormat.store(newValue == .json, ordering: .relaxed) }
    }

    public enum Level: String, Sendable { case info, error }

    /// One event: in JSON mode an object with `fields`; in text mode `text` as it is (nil: JSON only).
    public static func event(_ name: String, level: Level = .info, fields: [String: JSONValue] = [:], text: String?,
                             fd: Int32? = nil) {
        let target = fd ?? (level == .error ? 2 : 1)
        switch format {
        case .text:
            guard let text else { return }
            write(text.hasSuffix("\n") ? text : text + "\n", to: target)
        case .json:
            write(jsonLine(name, level: level, fields: fields), to: target)
        }
    }

    /// An error line (`tombola: …` on stderr in text mode).
    public static func error(_ name: String, _ message: String, fields: [String: JSONValue] = [:]) {
        var all = fields
        all["message"] = .string(message)
        event(name, level: .error, fields: all, text: "tombola: " + message)
    }

    /// `{"event":…,"level":…,"time":…,…}` and a newline; keys sorted, so lines diff well.
    static func jsonLine(_ name: String, level: Level, fields: [String: JSONValue]) -> String {
        var object = fields
        object["time"] = .string(timestamp())
        object["level"] = .string(level.rawValue)
        object["event"] = .string(name)
        return JSONValue.object(object).canonicalString + "\n"
    }

    /// UTC with milliseconds, RFC 3339: `2026-12-01T15:04:05.123Z`.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = Int(now.tv_nsec / 1_000_000)
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }

    private static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in _ = Glibc.write(fd, raw.baseAddress, raw.count) }
    }
}
