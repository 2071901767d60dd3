import CLinux
import Glibc
import JSON
import HTTPCore

/// How `--access-log` writes its lines.
public enum AccessLogFormat: String, Sendable, CaseIterable {
    /// `127.0.0.1 "GET /calc HTTP/1.1" 200 1234 0.4ms`
    case text
    /// The Combined Log Format of Apache and nginx, which GoAccess, fail2ban and most log
    /// tools read: `127.0.0.1 - - [03/Dec/2026:04:30:00 +0000] "GET /calc HTTP/1.1" 200 1234
    /// "https://example.org/page" "Mozilla/5.0 …"`.
    case combined
}

/// One line per request on standard output, in `format`. The query string is never logged
/// (it may carry keys), nor a fragment, nor the Referer's query or fragment; header keys are
/// never read. With `--log-format json` the same fields go out as an `access` event. `remote`
/// is the client as `--trusted-proxy` allows.
struct AccessLog: Sendable {
    var format: AccessLogFormat = .text

    /// The request's parts the line needs.
    struct Request {
        var remote: String
        var method: String
        var path: String
        var versionMinor: Int
        /// Only read for `.combined`.
        var referer: String?
        var userAgent: String?
    }

    func log(_ request: Request, status: Int, bytes: Int, nanoseconds: UInt64) {
        let millis = Double(nanoseconds / 1000) / 1000
        let method = Self.clean(request.method)
        let path = Self.clean(Self.withoutQuery(request.path))
        if Log.format == .json {
            var fields: [String: JSONValue] = [
                "remote": .string(request.remote), "method": .string(method), "path": .string(path),
                "version": .string("HTTP/1.\(request.versionMinor)"), "status": .int(Int64(status)), "bytes": .int(Int64(bytes)),
                "ms": .double(millis),
            ]
            if format == .combined {
                fields["referer"] = .string(Self.quoted(request.referer.map(Self.withoutQuery)))
                fields["userAgent"] = .string(Self.quoted(request.userAgent))
            }
            Log.event("access", fields: fields, text: nil)
            return
        }
        let line: String
        switch format {
        case .text:
            line = "\(request.remote) \"\(method) \(path) HTTP/1.\(request.versionMinor)\" \(status) \(bytes) \(millis)ms\n"
        case .combined:
            line = "\(request.remote) - - [\(Self.combinedTime(time(nil)))] \"\(method) \(path) HTTP/1.\(request.versionMinor)\" "
                + "\(status) \(bytes) \"\(Self.quoted(request.referer.map(Self.withoutQuery)))\" \"\(Self.quoted(request.userAgent))\"\n"
        }
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { raw in _ = write(1, raw.baseAddress, raw.count) }
    }

    /// Keeps log lines one per request whatever a client sends.
    private static func clean(_ text: String) -> String {
        String(text.unicodeScalars.prefix(512).map { $0.value < 0x21 || $0 == "\"" || $0.value == 0x7F ? "_" : Character($0) })
    }

    /// A header value for a quoted field: `-` when absent, spaces kept, quotes, backslashes and
    /// control characters replaced, at most 512 characters.
    private static func quoted(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "-" }
        return String(text.unicodeScalars.prefix(512).map {
            $0.value < 0x20 || $0 == "\"" || $0 == "\\" || $0.value == 0x7F ? "_" : Character($0)
        })
    }

    /// Up to the first `?` or `#`: a query or fragment may carry a key.
    static func withoutQuery(_ text: String) -> String {
        guard let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return text }
        return String(text[..<end])
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `03/Dec/2026:04:30:00 +0000` (UTC).
    static func combinedTime(_ seconds: time_t) -> String {
        var clock = seconds
        var parts = tm()
        gmtime_r(&clock, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(parts.tm_mday))/\(months[Int(parts.tm_mon)])/\(parts.tm_year + 1900):"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) +0000"
    }
}
