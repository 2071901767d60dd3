/// Headers sent on every response: only our own origin may supply scripts, styles,
/// images and sockets, and nothing may frame us.
enum SecurityHeaders {
    static let contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self' ws: wss:; base-uri 'none'; frame-ancestors 'none'"

    static let fields: [(String, String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]

    /// The fields plus `Server`, serialized once.
    static let serialized: [UInt8] = {
        var bytes: [UInt8] = Array("Server: tombola\r\n".utf8)
        for (name, value) in fields { bytes += Array("\(name): \(value)\r\n".utf8) }
        return bytes
    }()
}
