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
