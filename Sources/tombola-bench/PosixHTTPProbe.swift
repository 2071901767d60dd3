import Posix

/// A one-request HTTP client on Posix's `BlockingSocket`, for health checks.
struct PosixHTTPProbe {
    let socket: BlockingSocket

    init(host: String, port: Int, timeout: Duration) throws(POSIXError) {
        socket = try BlockingSocket(host: host, port: port, timeout: timeout)
    }

    /// Sends `GET path` and returns the status of the answer's status line.
    func get(path: String, host: String) -> Int? {
        do {
            try socket.send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            var head: [UInt8] = []
            while !head.contains(10) {
                let chunk = try socket.receive()
                if chunk.isEmpty { break }
                head += chunk
            }
            let line = String(decoding: head.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
            let parts = line.split(separator: " ")
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else { return nil }
            return Int(parts[1])
        } catch {
            return nil
        }
    }
}
