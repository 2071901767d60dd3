import HTTPCore

/// Everything the generic HTTP/WebSocket server needs to start (the product's own
/// settings live in `App`'s `AppConfiguration`, which embeds this).
public struct ServerConfiguration: Sendable {
    public var host: String
    /// 0 asks the kernel for a free port (`Server.start()` returns it).
    public var port: Int
    /// The page directory; nil serves `pageBundle` (the pages built into the binary).
    public var publicDirectory: String?
    /// Pages served when `publicDirectory` is nil (none when both are nil).
    public var pageBundle: PageBundle?
    public var accessLog: Bool
    /// The access log's lines (`--access-log-format`).
    public var accessLogFormat: AccessLogFormat = .text
    /// Whether `/metrics` is served here (off when `--metrics-listen` serves it elsewhere).
    public var servesMetrics = true
    /// Whether pages and files are served (off for the metrics listener).
    public var servesFiles = true
    /// Origins allowed to open WebSockets besides the server's own (e.g. `https://example.org`).
    public var allowedOrigins: [String]
    /// Origins pages may fetch from besides the server's own (CSP `connect-src`), e.g. the drand
    /// relays a page asks for a sealed round's value itself.
    public var connectSources: [String] = []
    /// Open connections beyond this are answered 503 and closed.
    public var maxConnections: Int
    /// Peers whose `Forwarded` / `X-Forwarded-*` headers are believed (reverse proxies).
    public var trustedProxies: TrustedProxies
    /// Text lines for people, or one JSON object per line for log collectors.
    public var logFormat: LogFormat
    /// Event loops (threads); default one per core.
    public var loopCount: Int
    /// Batch each loop's sends through io_uring when the kernel offers it (else `write`).
    public var ioUring: Bool
    /// From the first byte of a request to its end (slowloris guard) → 408.
    public var headerTimeout: Duration
    /// Quiet keep-alive connections close after this.
    public var idleTimeout: Duration
    /// Longest wait for in-flight responses on shutdown before connections are cut.
    public var shutdownGrace: Duration
    /// How often the static file watcher re-stats `publicDirectory`; nil turns it off.
    public var staticReloadInterval: Duration?
    /// Requests a connection may have in flight (pipelined) before it stops reading.
    public var maxPipelinedRequests: Int

    public init(
        host: String = "0.0.0.0",
        port: Int = 8080,
        publicDirectory: String? = "./Public",
        pageBundle: PageBundle? = nil,
        accessLog: Bool = false,
        allowedOrigins: [String] = [],
        maxConnections: Int = 10_000,
        trustedProxies: TrustedProxies = TrustedProxies(),
        logFormat: LogFormat = .text,
        loopCount: Int = 0,
        ioUring: Bool = true,
        headerTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60),
        shutdownGrace: Duration = .milliseconds(1500),
        staticReloadInterval: Duration? = .seconds(2),
        maxPipelinedRequests: Int = 32
    ) {
        self.host = host
        self.port = port
        self.publicDirectory = publicDirectory
        self.pageBundle = pageBundle
        self.accessLog = accessLog
        self.allowedOrigins = allowedOrigins
        self.maxConnections = maxConnections
        self.trustedProxies = trustedProxies
        self.logFormat = logFormat
        self.loopCount = loopCount
        self.ioUring = ioUring
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.shutdownGrace = shutdownGrace
        self.staticReloadInterval = staticReloadInterval
        self.maxPipelinedRequests = maxPipelinedRequests
    }
}
