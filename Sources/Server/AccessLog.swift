import CLinux
import Glibc
import JSON
import HTTPCore

/// One line per request on standard output:
/// `127.0.0.1 "GET /calc HTTP/1.1" 200 1234 0.4ms`. The query string is never logged
/// (it may carry keys), and fragments never reach the server. With `--log-format json` the
/// same fields go out as an `access` event. `remote` is the client as `--trusted-proxy` allows.
struct AccessLog: Sendable {
    func log(remote: String, method: String, path: String, versionMinor: Int, status: Int, bytes: Int, nanoseconds: UInt64) {
        let millis = Double(nanoseconds / 1000) / 1000
        if Log.format == .json {
            Log.event("access", fields: [
                "remote": .string(remote), "method": .string(Self.clean(method)), "path": .string(Self.clean(path)),
                "version": .string("HTTP/1.\(versionMinor)"), "status": .int(Int64(status)), "bytes": .int(Int64(bytes)),
                "ms": .double(millis),
            ], text: nil)
            return
        }
        let line = "\(remote) \"\(Self.clean(method)) \(Self.clean(path)) HTTP/1.\(versionMinor)\" \(status) \(bytes) \(millis)ms\n"
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { raw in _ = write(1, raw.baseAddress, raw.count) }
    }

    /// Keeps log lines one per request whatever a client sends.
    private static func clean(_ text: String) -> String {
        String(text.unicodeScalars.prefix(512).map { $0.value < 0x21 || $0 == "\"" || $0.value == 0x7F ? "_" : Character($0) })
    }
}
