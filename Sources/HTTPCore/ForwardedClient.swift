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
