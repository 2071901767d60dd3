import WebSocketCore

/// Limits and policies of one WebSocket endpoint (`Router.webSocket(prefix:configuration:accept:)`).
public struct WebSocketEndpointConfiguration: Sendable {
    /// Largest message a client may send, after inflating (RFC 6455 §10.4); larger closes with 1009.
    public var maxMessageSize: Int
    /// Ping a client that has been silent this long; nil never pings.
    public var pingInterval: Duration?
    /// Drop a client silent this long (a pong counts as a sign of life); nil never drops.
    public var idleTimeout: Duration?
    /// After we send a close frame, wait this long for the client's before cutting the socket.
    public var closeTimeout: Duration
    /// permessage-deflate policy; nil refuses the extension.
    public var deflate: PerMessageDeflateConfiguration?
    /// Subprotocols we speak, most preferred first.
    public var subprotocols: [String]
    /// Origins allowed besides the request's own Host and `ServerConfiguration.allowedOrigins`.
    public var allowedOrigins: [String]
    /// Latest-value frames are skipped while more than this many bytes wait to be written to
    /// the client; the newest skipped one is sent once the queue drains.
    public var latestValueSoftLimit: Int
    /// A client with more than this many bytes queued when a reliable frame is sent is
    /// closed with 1013 (it resyncs from a snapshot when it reconnects).
    public var reliableHardLimit: Int
    /// Serve this endpoint's sessions on the server's interactive loop, which does no
    /// broadcasting: a socket upgraded elsewhere moves there, so its messages are answered
    /// at once even while the other loops write a tick to thousands of viewers.
    public var prefersInteractiveLoop: Bool

    public init(maxMessageSize: Int = 1 << 20, pingInterval: Duration? = .seconds(20), idleTimeout: Duration? = .seconds(60),
                closeTimeout: Duration = .seconds(5), deflate: PerMessageDeflateConfiguration? = PerMessageDeflateConfiguration(),
                subprotocols: [String] = [], allowedOrigins: [String] = [],
                latestValueSoftLimit: Int = 64 * 1024, reliableHardLimit: Int = 1 << 20,
                prefersInteractiveLoop: Bool = false) {
        self.maxMessageSize = maxMessageSize
        self.pingInterval = pingInterval
        self.idleTimeout = idleTimeout
        self.closeTimeout = closeTimeout
        self.deflate = deflate
        self.subprotocols = subprotocols
        self.allowedOrigins = allowedOrigins
        self.latestValueSoftLimit = latestValueSoftLimit
        self.reliableHardLimit = reliableHardLimit
        self.prefersInteractiveLoop = prefersInteractiveLoop
    }

    /// The codec's configuration once the handshake has settled `deflate`.
    func connectionConfiguration(deflate parameters: PerMessageDeflateParameters?) -> WebSocketConnection.Configuration {
        let policy = deflate ?? PerMessageDeflateConfiguration()
        return WebSocketConnection.Configuration(
            maxMessageSize: maxMessageSize, pingInterval: pingInterval, idleTimeout: idleTimeout,
            closeTimeout: closeTimeout, deflate: parameters, compressionThreshold: policy.compressionThreshold,
            compressionLevel: policy.compressionLevel, memoryLevel: policy.memoryLevel)
    }

    /// How often the loop's sweep should run for sessions of this endpoint: every second, or
    /// finer when a test configures sub-second heartbeats.
    var sweepInterval: Duration {
        var interval = Duration.seconds(1)
        for candidate in [pingInterval, idleTimeout, closeTimeout] {
            if let candidate, candidate / 4 < interval { interval = max(candidate / 4, .milliseconds(10)) }
        }
        return interval
    }
}
