import DrawRoomCore
import ClusterCore
import Embedded
import HTTPCore
import Server

/// Everything `tombola` needs to start: the generic server's settings plus the product's
/// own (where draws live, the default draw and its keys, the tick rate). Filled from flags
/// and environment by `ServerOptions`, or directly by tests. The server's settings read
/// through (`configuration.port`).
@dynamicMemberLookup
public struct AppConfiguration: Sendable {
    public var server: ServerConfiguration
    public var dataDirectory: String
    public var defaultDrawCode: String?
    public var hostKey: String?
    public var adminKey: String?
    /// Rolling-number ticks per second while a draw rolls.
    public var tickHz: Int
    /// Serve `/ws/echo` for WebSocket conformance suites.
    public var echoEndpoint: Bool
    /// Largest body of a pool upload or import by a draw's host (`--max-pool-bytes`).
    public var maxPoolBytes: Int = defaultMaxPoolBytes
    /// Seconds a draw may go without a page or a request before its state leaves memory
    /// (`--unload-idle-after`; 0 never; single-box only). DrawService+Unloading.swift.
    public var unloadIdleAfter = 600

    /// 16 MiB: 100,000 spreadsheet rows of up to ~160 bytes (a realistic name, id, tickets and
    /// group take 30–60), or 100,000 realistic names as JSON (1.7 MB) many times over.
    public static let defaultMaxPoolBytes = DrawRoomSettings.defaultMaxPoolBytes
    /// Seconds between SIGTERM and the graceful shutdown, with `/readyz` answering 503 (`--drain-seconds`).
    public var drainSeconds = 0
    /// `HOST:PORT` of a listener that serves only `/metrics` and `/healthz`; the public port then
    /// answers `/metrics` with 404 (`--metrics-listen`).
    public var metricsListen: (host: String, port: Int)?
    /// Cluster mode (`--redis`): nil runs single-box on SQLite.
    public var cluster: ClusterSettings?
    /// As given (`ServerOptions` turns them into `cluster`).
    var redisURL: String?
    var redisSentinels: String?
    var redisMaster: String?
    var clusterKeyFile: String?
    /// Where `--host-key-file` / `--admin-key-file` read the keys from (a key from a file is never printed).
    public internal(set) var hostKeyFile: String?
    public internal(set) var adminKeyFile: String?
    var allowUnsafeRedis = false
    /// Beacon-sealed rounds (`--beacon-relay`, `--beacon-chain` …, `--beacon-allow-http`; docs/FAIRNESS.md §13).
    public var beacon = BeaconSettings()
    /// An RFC 3161 time-stamping authority (`--tsa URL`): each round's record is time-stamped there
    /// (issue #47, docs/FAIRNESS.md §18); nil: none.
    public var tsaURL: String? = nil
    /// Webhooks may reach loopback, private and link-local addresses and plain http
    /// (`--webhook-allow-private`; issue #43, docs/SECURITY.md): off, against request forgery.
    public var webhookAllowPrivate = false
    /// New draws are private unless their settings say `"private": false` (`--private-draws`,
    /// issue #42, docs/FAIRNESS.md §22): a list's names never leave the server.
    public var privateDraws = false
    var beaconChainParts = BeaconChainParts()
    var beaconRelays: [String] = []
    var metricsListenText: String?

    public init(
        host: String = "0.0.0.0",
        port: Int = 8080,
        dataDirectory: String = "./tombola-data",
        publicDirectory: String? = nil,
        defaultDrawCode: String? = nil,
        hostKey: String? = nil,
        adminKey: String? = nil,
        tickHz: Int = 20,
        accessLog: Bool = false,
        echoEndpoint: Bool = false,
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
        self.server = ServerConfiguration(
            host: host, port: port, publicDirectory: publicDirectory, accessLog: accessLog,
            allowedOrigins: allowedOrigins, maxConnections: maxConnections, trustedProxies: trustedProxies,
            logFormat: logFormat, loopCount: loopCount,
            ioUring: ioUring, headerTimeout: headerTimeout, idleTimeout: idleTimeout,
            shutdownGrace: shutdownGrace, staticReloadInterval: staticReloadInterval,
            maxPipelinedRequests: maxPipelinedRequests)
        server.pageBundle = Self.builtInPages
        self.dataDirectory = dataDirectory
        self.defaultDrawCode = defaultDrawCode
        self.hostKey = hostKey
        self.adminKey = adminKey
        self.tickHz = tickHz
        self.echoEndpoint = echoEndpoint
    }

    /// `Public/` as built into the binary, served unless `--public DIR` names a directory.
    public static let builtInPages = PageBundle(files: EmbeddedPages.files, modifiedSeconds: BuildInfo.unixSeconds)

    /// `--beacon-chain`, `--beacon-public-key`, `--beacon-genesis`, `--beacon-period` as given.
    struct BeaconChainParts: Sendable {
        var hash: String?
        var publicKey: String?
        var genesis: Int?
        var period: Int?
        var isEmpty: Bool { hash == nil && publicKey == nil && genesis == nil && period == nil }
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<ServerConfiguration, Value>) -> Value {
        get { server[keyPath: keyPath] }
        set { server[keyPath: keyPath] = newValue }
    }
}
