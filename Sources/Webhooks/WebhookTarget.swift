import Glibc

/// Why a webhook's target is refused.
public enum WebhookRefusal: Error, Sendable, Equatable {
    /// Not an `http(s)://host[:port][/path]` URL we send to.
    case badURL(String)
    /// The host is, or resolves to, a loopback, private, link-local or otherwise non-public
    /// address, and the operator did not allow those (`--webhook-allow-private`).
    case privateAddress(String)
    /// The host name does not resolve.
    case unresolved(String)
}

/// A webhook's URL, split: where the request goes, before any name is resolved.
public struct WebhookTarget: Sendable, Equatable {
    public let url: String
    public let https: Bool
    /// The host as written (an IPv6 literal without its brackets).
    public let host: String
    public let port: Int

    /// Accepts `https://host[:port][/path][?query]` and `http://…` (plain http is refused later
    /// unless private targets are allowed, or by the caller's own rule), up to 2,000
    /// characters, printable ASCII; refuses user info (`user@host`), fragments and anything else.
    public static func parse(_ url: String) -> Result<WebhookTarget, WebhookRefusal> {
        guard url.utf8.count <= 2000, url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !url.contains("#") else {
            return .failure(.badURL("not a plain URL"))
        }
        let lower = url.lowercased()
        let https = lower.hasPrefix("https://")
        guard https || lower.hasPrefix("http://") else { return .failure(.badURL("not an http(s) URL")) }
        let rest = url.dropFirst(https ? 8 : 7)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard !authority.isEmpty, !authority.contains("@") else { return .failure(.badURL("no host, or user info in the URL")) }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return .failure(.badURL("an unclosed IPv6 address")) }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(.badURL("bad port")) }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        var port = https ? 443 : 80
        if let portText {
            guard let n = Int(portText), (1...65535).contains(n) else { return .failure(.badURL("bad port")) }
            port = n
        }
        while host.hasSuffix(".") { host = host.dropLast() }
        guard !host.isEmpty, host.utf8.count <= 253 else { return .failure(.badURL("no host")) }
        return .success(WebhookTarget(url: url, https: https, host: host.lowercased(), port: port))
    }

    /// The address to connect to: `host` resolved (or taken as a literal), every address it has
    /// checked, and one returned so the request connects there and nowhere else (a name that
    /// resolves differently a moment later cannot move it to an internal address).
    public func resolve(allowPrivate: Bool) -> Result<String, WebhookRefusal> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            return .failure(.unresolved(host))
        }
        defer { freeaddrinfo(list) }
        var addresses: [(text: String, bytes: [UInt8])] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let address = Self.address(info.pointee) { addresses.append(address) }
            cursor = info.pointee.ai_next
        }
        guard let chosen = addresses.first else { return .failure(.unresolved(host)) }
        if !allowPrivate, let refused = addresses.first(where: { !AddressPolicy.isPublic($0.bytes) }) {
            return .failure(.privateAddress(refused.text))
        }
        return .success(chosen.text)
    }

    private static func address(_ info: addrinfo) -> (text: String, bytes: [UInt8])? {
        guard let raw = info.ai_addr else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch info.ai_family {
        case AF_INET:
            var address = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            let bytes = withUnsafeBytes(of: &address) { Array($0) }
            guard inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil else { return nil }
            return (String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), bytes)
        case AF_INET6:
            var address = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            let bytes = withUnsafeBytes(of: &address) { Array($0) }
            guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return nil }
            return (String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), bytes)
        default:
            return nil
        }
    }
}

/// Which addresses a webhook may reach without `--webhook-allow-private`: the public internet
/// only (against server-side request forgery: a host's webhook must not reach the server's own
/// loopback, its LAN, or a cloud's metadata address).
public enum AddressPolicy {
    /// `address`: 4 (IPv4) or 16 (IPv6) bytes in network order.
    public static func isPublic(_ address: [UInt8]) -> Bool {
        if address.count == 4 { return isPublicV4(address) }
        guard address.count == 16 else { return false }
        let a = address
        if a.allSatisfy({ $0 == 0 }) { return false } // ::
        if a[0..<15].allSatisfy({ $0 == 0 }) && a[15] == 1 { return false } // ::1
        // ::ffff:a.b.c.d (IPv4-mapped), ::a.b.c.d (IPv4-compatible) and 64:ff9b::a.b.c.d (NAT64):
        // the IPv4 address inside decides.
        if a[0..<10].allSatisfy({ $0 == 0 }) && ((a[10] == 0xFF && a[11] == 0xFF) || (a[10] == 0 && a[11] == 0)) {
            return isPublicV4(Array(a[12..<16]))
        }
        if a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xFF && a[3] == 0x9B && a[4..<12].allSatisfy({ $0 == 0 }) {
            return isPublicV4(Array(a[12..<16]))
        }
        if a[0] == 0x20 && a[1] == 0x02 { return isPublicV4(Array(a[2..<6])) } // 6to4
        if a[0] & 0xFE == 0xFC { return false } // fc00::/7 unique local
        if a[0] == 0xFE && a[1] & 0xC0 == 0x80 { return false } // fe80::/10 link-local
        if a[0] == 0xFE && a[1] & 0xC0 == 0xC0 { return false } // fec0::/10 site-local (deprecated)
        if a[0] == 0xFF { return false } // multicast
        if a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0D && a[3] == 0xB8 { return false } // 2001:db8::/32 documentation
        if a[0] == 0x01 && a[1] == 0x00 && a[2..<8].allSatisfy({ $0 == 0 }) { return false } // 100::/64 discard
        return true
    }

    static func isPublicV4(_ a: [UInt8]) -> Bool {
        switch (a[0], a[1], a[2]) {
        case (0, _, _), (10, _, _), (127, _, _): return false
        case (100, 64...127, _): return false // shared address space (carrier-grade NAT)
        case (169, 254, _): return false // link-local, cloud metadata
        case (172, 16...31, _): return false
        case (192, 0, 0), (192, 0, 2), (192, 88, 99), (192, 168, _): return false
        case (198, 18...19, _), (198, 51, 100), (203, 0, 113): return false
        case (224...255, _, _): return false // multicast, reserved, broadcast
        default: return true
        }
    }
}
