import Posix

/// One blocking HTTP/1.1 request (Content-Length framing, `Connection: close`), for the REST
/// calls that set a run up: creating draws, starting and stopping them.
enum BenchHTTP {
    struct Response {
        var status: Int
        var body: String
    }

    /// A request written but not yet answered: many can be in flight (e.g. 1,000 Stops, each
    /// answered only after its reveal) and are read afterwards.
    struct InFlight {
        let socket: BlockingSocket

        func response() -> Response? {
            guard let bytes = try? socket.receiveUntilClosed() else { return nil }
            return BenchHTTP.parse(bytes)
        }
    }

    static func send(_ method: String, _ path: String, target: BenchTarget, key: String? = nil, body: String? = nil,
                     timeout: Duration = .seconds(30)) -> InFlight? {
        guard let socket = try? BlockingSocket(host: target.host, port: target.port, timeout: timeout) else { return nil }
        let bytes = Array((body ?? "").utf8)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nConnection: close\r\n"
        if let key { head += "Authorization: Bearer \(key)\r\n" }
        if body != nil || method == "POST" || method == "PUT" { head += "Content-Type: application/json\r\nContent-Length: \(bytes.count)\r\n" }
        guard (try? socket.send(Array((head + "\r\n").utf8) + bytes)) != nil else { return nil }
        return InFlight(socket: socket)
    }

    static func request(_ method: String, _ path: String, target: BenchTarget, key: String? = nil, body: String? = nil,
                        timeout: Duration = .seconds(30)) -> Response? {
        send(method, path, target: target, key: key, body: body, timeout: timeout)?.response()
    }

    static func parse(_ bytes: [UInt8]) -> Response? {
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }) else {
            return nil
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let parts = head.prefix { $0 != "\r" }.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        return Response(status: status, body: String(decoding: bytes[(end + 4)...], as: UTF8.self))
    }
}
