/// Headers sent on every response: only our own origin may supply scripts, styles,
/// images and sockets, and nothing may frame us. Pages may fetch from our own origin and from
/// the origins the server names (`ServerConfiguration.connectSources`: the drand relays a page
/// asks itself, docs/FAIRNESS.md §13).
enum SecurityHeaders {
    /// The policy with no origin besides our own.
    static let contentSecurityPolicy = contentSecurityPolicy(connectSources: [])

    static func contentSecurityPolicy(connectSources: [String]) -> String {
        let connect = (["'self'", "ws:", "wss:"] + connectSources).joined(separator: " ")
        return "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src \(connect); base-uri 'none'; frame-ancestors 'none'"
    }

    static func fields(connectSources: [String]) -> [(String, String)] {
        [
            ("Content-Security-Policy", contentSecurityPolicy(connectSources: connectSources)),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ]
    }

    /// The fields plus `Server`, serialized once per server.
    static func serialized(connectSources: [String]) -> [UInt8] {
        var bytes: [UInt8] = Array("Server: tombola\r\n".utf8)
        for (name, value) in fields(connectSources: connectSources) { bytes += Array("\(name): \(value)\r\n".utf8) }
        return bytes
    }
}
