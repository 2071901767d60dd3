/// Where Redis is: `redis://[:PASSWORD@]HOST[:PORT][/DB]`. The password is never printed.
public struct RedisEndpoint: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var database: Int
    public var password: String?

    public init(host: String, port: Int = 6379, database: Int = 0, password: String? = nil) {
        self.host = host
        self.port = port
        self.database = database
        self.password = password
    }

    /// Parses a `redis://` URL; nil when it is not one (the caller names the option in its error).
    public init?(url: String) {
        guard url.hasPrefix("redis://") else { return nil }
        var rest = Substring(url.dropFirst("redis://".count))
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            // `user:password` or `:password`; a user other than the default is not supported.
            let parts = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].isEmpty || parts[0] == "default", !parts[1].isEmpty else { return nil }
            password = String(parts[1])
        }
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let db = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !db.isEmpty {
                guard let value = Int(db), value >= 0 else { return nil }
                database = value
            }
        }
        var host = rest
        var port = 6379
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = Int(after.dropFirst()), (1...65535).contains(value) else { return nil }
                port = value
            }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]), (1...65535).contains(value) else { return nil }
            port = value
            host = host[..<colon]
        }
        guard !host.isEmpty else { return nil }
        self.init(host: String(host), port: port, database: database, password: password)
    }
}

extension RedisEndpoint: CustomStringConvertible {
    /// `redis://host:port/db`, without the password.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "redis://\(password == nil ? "" : ":***@")\(shownHost):\(port)/\(database)"
    }
}
