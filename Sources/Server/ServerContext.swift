import HTTPCore
import Posix
import Synchronization

/// Shared, thread-safe state of a running server, handed to every connection.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let router: Router
    let staticFiles: StaticFiles
    let metrics: ServerMetrics
    let limits = HTTPLimits()
    let loopStates: [LoopState]
    let openConnections = Atomic<Int>(0)
    let shuttingDown = Atomic<Bool>(false)
    let accessLog: AccessLog?
    let webSockets: WebSocketRuntime
    /// `SecurityHeaders` for this server's `connectSources`, serialized once.
    let securityHeaders: [UInt8]

    init(configuration: ServerConfiguration, router: Router, staticFiles: StaticFiles,
         metrics: ServerMetrics, webSockets: WebSocketRuntime, loops: [EventLoop]) {
        self.webSockets = webSockets
        self.configuration = configuration
        self.router = router
        self.staticFiles = staticFiles
        self.metrics = metrics
        self.loopStates = loops.map(LoopState.init)
        self.accessLog = configuration.accessLog ? AccessLog(format: configuration.accessLogFormat) : nil
        self.securityHeaders = SecurityHeaders.serialized(connectSources: configuration.connectSources)
    }

    func state(for loop: EventLoop) -> LoopState { loopStates[loop.index] }

    var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }
}

/// The server's own metrics.
struct ServerMetrics: Sendable {
    let openConnections: MetricsGauge
    let acceptedConnections: MetricsCounter
    let rejectedConnections: MetricsCounter
    let bytesOut: MetricsCounter
    private let byStatus: [Int: MetricsCounter]
    private let otherStatus: MetricsCounter

    init(registry: MetricsRegistry) {
        openConnections = registry.gauge("tombola_http_open_connections", help: "Open client connections.")
        acceptedConnections = registry.counter("tombola_http_connections_total", help: "Accepted client connections.")
        rejectedConnections = registry.counter("tombola_http_connections_rejected_total",
                                               help: "Connections answered 503 because the server was at its connection cap.")
        bytesOut = registry.counter("tombola_http_response_bytes_total", help: "Bytes of HTTP responses sent (heads and bodies).")
        var byStatus: [Int: MetricsCounter] = [:]
        for status in HTTPStatus.known {
            byStatus[status.code] = registry.counter("tombola_http_requests_total", help: "HTTP requests answered, by status code.",
                                                     labels: [("code", String(status.code))])
        }
        self.byStatus = byStatus
        otherStatus = registry.counter("tombola_http_requests_total", help: "HTTP requests answered, by status code.",
                                       labels: [("code", "other")])
    }

    func countResponse(status: Int, bytes: Int) {
        (byStatus[status] ?? otherStatus).increment()
        bytesOut.increment(by: bytes)
    }
}
