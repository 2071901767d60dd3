import Posix

/// The server under test: a loopback `http://127.0.0.x:port` URL. Anything else is refused, so
/// the tool cannot be pointed at someone else's machine.
struct BenchTarget: Sendable {
    var host: String
    var port: Int
    var address: SocketAddress

    /// `Host` header value.
    var hostHeader: String { "\(host):\(port)" }
    var url: String { "http://\(host):\(port)" }

    init(url: String) throws(BenchError) {
        var rest = Substring(url)
        for scheme in ["http://", "ws://"] where rest.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        if rest.hasPrefix("https://") || rest.hasPrefix("wss://") { throw .usage("TLS targets are not supported: \(url)") }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        var host = String(rest)
        var port = 80
        if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            guard let parsed = Int(rest[rest.index(after: colon)...]), (1...65535).contains(parsed) else {
                throw .usage("bad port in \(url)")
            }
            port = parsed
        }
        if host == "localhost" { host = "127.0.0.1" }
        guard BenchTarget.isLoopbackIPv4(host) else {
            throw .usage("refusing \(host): tombola-bench only targets loopback addresses (127.0.0.0/8)")
        }
        self.host = host
        self.port = port
        do { address = try SocketAddress(host: host, port: port) } catch { throw .usage("bad address \(host)") }
    }

    static func isLoopbackIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isNumber), let value = Int(part) else { return false }
            return value <= 255
        }
    }

    /// Source addresses 127.0.0.1 … 127.0.0.<count> (at most 254), for spreading connections
    /// over more four-tuples than one address has ephemeral ports.
    static func sourceAddresses(count: Int) -> [SocketAddress] {
        (1...min(254, max(1, count))).compactMap { try? SocketAddress(host: "127.0.0.\($0)", port: 0) }
    }
}
