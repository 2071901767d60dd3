/// The networks whose requests may say who the client is (`--trusted-proxy CIDR`).
///
/// Only when the connection's peer is in one of them are `X-Forwarded-For` /
/// `X-Forwarded-Proto` / `X-Forwarded-Host` or, when none of those came, `Forwarded`
/// (RFC 7239) believed. The client is
/// found by walking the forwarded chain from the right (the entry our proxy appended) past
/// every trusted address; the first untrusted one is the client. Anything a client wrote
/// further left is never believed, so a phone cannot pick another phone's address.
public struct TrustedProxies: Sendable, Equatable {
    /// One network: address bytes (4 or 16) and prefix length.
    public struct Network: Sendable, Equatable, CustomStringConvertible {
        public let bytes: [UInt8]
        public let prefixLength: Int

        /// `10.0.0.0/8`, `192.168.1.7` (a /32), `fd00::/8`, `::1`; nil when malformed.
        public init?(_ text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let bytes = IPAddressText.bytes(String(parts[0])) else { return nil }
            let maximum = bytes.count * 8
            var length = maximum
            if parts.count == 2 {
                guard !parts[1].isEmpty, parts[1].allSatisfy(\.isASCIIDigit), let parsed = Int(parts[1]),
                      parsed <= maximum else { return nil }
                length = parsed
            }
            self.bytes = bytes
            self.prefixLength = length
        }

        public func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for index in 0..<bytes.count where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if address[index] & mask != bytes[index] & mask { return false }
                remaining -= bits
            }
            return true
        }

        public var description: String { "\(IPAddressText.text(bytes))/\(prefixLength)" }
    }

    public var networks: [Network]

    public init(_ networks: [Network] = []) {
        self.networks = networks
    }

    /// Parses CIDR texts; nil names the first malformed one.
    public static func parse(_ texts: [String]) -> Result<TrustedProxies, MalformedNetwork> {
        var networks: [Network] = []
        for text in texts {
            guard let network = Network(text) else { return .failure(MalformedNetwork(text: text)) }
            networks.append(network)
        }
        return .success(TrustedProxies(networks))
    }

    public struct MalformedNetwork: Error, Sendable, Equatable {
        public let text: String
    }

    public var isEmpty: Bool { networks.isEmpty }

    /// Whether `address` (text, IPv4-mapped IPv6 counts as IPv4) is a trusted proxy.
    public func trusts(_ address: String) -> Bool {
        guard !networks.isEmpty, let bytes = IPAddressText.bytes(address) else { return false }
        return trusts(bytes)
    }

    private func trusts(_ bytes: [UInt8]) -> Bool {
        networks.contains { $0.contains(bytes) }
    }

    /// Who sent a request that arrived from `peer` with `headers`.
    public func client(peer: String, headers: HTTPHeaders) -> ForwardedClient {
        guard trusts(peer) else { return ForwardedClient(address: peer) }
        // X-Forwarded-* first: nginx and Caddy set them and pass a client's own `Forwarded`
        // through untouched, so that header is believed only when no X-Forwarded-* came.
        var chain: [String]
        var proto: String?
        var host: String?
        let forwardedFor = headers.values(for: "X-Forwarded-For")
        if !forwardedFor.isEmpty || headers.contains(name: "X-Forwarded-Proto") || headers.contains(name: "X-Forwarded-Host") {
            chain = forwardedFor.flatMap { $0.split(separator: ",") }.map { trimmed($0) }
            proto = headers.values(for: "X-Forwarded-Proto").last.flatMap { $0.split(separator: ",").last.map(trimmed) }
            host = headers.values(for: "X-Forwarded-Host").last.flatMap { $0.split(separator: ",").last.map(trimmed) }
        } else {
            let forwarded = ForwardedHeader.elements(headers.values(for: "Forwarded"))
            chain = forwarded.compactMap { $0["for"] }
            proto = forwarded.last?["proto"]
            host = forwarded.last?["host"]
        }
        var address = peer
        while let last = chain.popLast() {
            guard let bytes = IPAddressText.bytes(ForwardedHeader.node(last)) else { break }  // "unknown", "_hidden"
            address = IPAddressText.text(bytes)
            if !trusts(bytes) { break }
        }
        proto = proto.map { $0.lowercased() }
        if let value = proto, value != "http" && value != "https" { proto = nil }
        if let value = host, !Self.isPlausibleHost(value) { host = nil }
        let requestHost = headers.values(for: "Host").count == 1 ? headers["Host"].map(trimmed) : nil
        return ForwardedClient(address: address, viaTrustedProxy: true, proto: proto,
                               host: host ?? requestHost.flatMap { Self.isPlausibleHost($0) ? $0 : nil })
    }

    /// host[:port] made of the characters a URL authority may carry, so links stay links.
    static func isPlausibleHost(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x2D || byte == 0x3A || byte == 0x5B || byte == 0x5D || byte == 0x5F
        }
    }

    private func trimmed(_ text: Substring) -> String {
        var value = text
        while value.first == " " || value.first == "\t" { value = value.dropFirst() }
        while value.last == " " || value.last == "\t" { value = value.dropLast() }
        return String(value)
    }

    private func trimmed(_ text: String) -> String { trimmed(Substring(text)) }
}

/// The client of one request as the server believes it.
public struct ForwardedClient: Sendable, Equatable {
    /// The client's IP address (the peer's own unless a trusted proxy named another).
    public let address: String
    /// The request came through a trusted proxy.
    public let viaTrustedProxy: Bool
    /// `http` or `https` as the trusted proxy saw it; nil when not told.
    public let proto: String?
    /// The host the client asked for (forwarded host, else `Host`); nil unless via a trusted proxy.
    public let host: String?

    public init(address: String, viaTrustedProxy: Bool = false, proto: String? = nil, host: String? = nil) {
        self.address = address
        self.viaTrustedProxy = viaTrustedProxy
        self.proto = proto
        self.host = host
    }

    /// `https://tombola.example.org`, the base of links handed to this client; nil when not
    /// behind a trusted proxy (then the server's own address is the base).
    public var baseURL: String? {
        guard viaTrustedProxy, let host else { return nil }
        return "\(proto ?? "http")://\(host)"
    }
}

/// RFC 7239 `Forwarded` elements, in order across every header line.
enum ForwardedHeader {
    /// Each element's parameters (names lowercased, quotes removed); malformed pairs are dropped.
    static func elements(_ lines: [String]) -> [[String: String]] {
        var result: [[String: String]] = []
        for line in lines {
            for element in split(line, on: ",") {
                var parameters: [String: String] = [:]
                for pair in split(element, on: ";") {
                    guard let equals = pair.firstIndex(of: "=") else { continue }
                    let name = pair[..<equals].trimmingCharacters(" \t").lowercased()
                    var value = Substring(pair[pair.index(after: equals)...].trimmingCharacters(" \t"))
                    if value.count >= 2, value.first == "\"", value.last == "\"" {
                        value = value.dropFirst().dropLast()
                    }
                    parameters[name] = value.replacingBackslashEscapes()
                }
                if !parameters.isEmpty { result.append(parameters) }
            }
        }
        return result
    }

    /// `[2001:db8::1]:4711` → `2001:db8::1`; `192.0.2.1:80` → `192.0.2.1`.
    static func node(_ value: String) -> String {
        if value.hasPrefix("["), let close = value.firstIndex(of: "]") {
            return String(value[value.index(after: value.startIndex)..<close])
        }
        let colons = value.filter { $0 == ":" }.count
        if colons == 1, let colon = value.firstIndex(of: ":") { return String(value[..<colon]) }
        return value
    }

    /// Splits on `separator` outside double quotes.
    private static func split(_ text: String, on separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if character == "\\" && quoted {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == separator && !quoted {
                parts.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current)
        return parts
    }
}

/// Textual IPv4 and IPv6 addresses ⇄ bytes, without the C library (HTTPCore has no sockets).
enum IPAddressText {
    /// 4 bytes for IPv4 (and IPv4-mapped IPv6), 16 for IPv6; nil when malformed.
    static func bytes(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }  // fe80::1%eth0
        if !text.contains(":") { return ipv4(text) }
        guard let v6 = ipv6(text) else { return nil }
        if v6[0..<10].allSatisfy({ $0 == 0 }) && v6[10] == 0xFF && v6[11] == 0xFF { return Array(v6[12...]) }
        return v6
    }

    static func text(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var groups: [UInt16] = []
        for index in stride(from: 0, to: 16, by: 2) { groups.append(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])) }
        // RFC 5952: the longest run (≥ 2) of zero groups becomes "::".
        var best = (start: -1, length: 0)
        var index = 0
        while index < 8 {
            if groups[index] == 0 {
                var end = index
                while end < 8 && groups[end] == 0 { end += 1 }
                if end - index > best.length && end - index >= 2 { best = (index, end - index) }
                index = end
            } else {
                index += 1
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.start >= 0 else { return hex.joined(separator: ":") }
        let head = hex[0..<best.start].joined(separator: ":")
        let tail = hex[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }

    private static func ipv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCIIDigit),
                  let value = UInt8(part), part.count == 1 || part.first != "0" else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func ipv6(_ text: Substring) -> [UInt8]? {
        var text = text
        var tail: [UInt8] = []
        // A trailing dotted quad (::ffff:192.0.2.1).
        if let lastColon = text.lastIndex(of: ":"), text[text.index(after: lastColon)...].contains(".") {
            guard let v4 = ipv4(text[text.index(after: lastColon)...]) else { return nil }
            tail = v4
            text = text[...lastColon]
            if text.hasSuffix("::") { } else { text = text.dropLast() }
        }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        let tailGroups = halves.count == 2 ? groups(halves[1]) : []
        guard let tailGroups else { return nil }
        let total = head.count + tailGroups.count + tail.count / 2
        if halves.count == 2 { guard total < 8 else { return nil } } else { guard total == 8 else { return nil } }
        var all = head + [UInt16](repeating: 0, count: 8 - total) + tailGroups
        if halves.count == 1 { all = head }
        var bytes: [UInt8] = []
        for group in all { bytes += [UInt8(group >> 8), UInt8(group & 0xFF)] }
        return bytes + tail
    }
}

extension Substring {
    fileprivate func replacingBackslashEscapes() -> String {
        var result = ""
        var escaped = false
        for character in self {
            if character == "\\" && !escaped { escaped = true; continue }
            escaped = false
            result.append(character)
        }
        return result
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(_ set: String) -> String {
        var value = Substring(self)
        while let first = value.first, set.contains(first) { value = value.dropFirst() }
        while let last = value.last, set.contains(last) { value = value.dropLast() }
        return String(value)
    }

    fileprivate func components(separatedBy separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            parts.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
