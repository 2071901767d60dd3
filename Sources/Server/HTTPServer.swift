import CLinux
import Glibc
import HTTPCore
import Posix
import Locking
import Synchronization

/// A generic HTTP/1.1 and WebSocket server: event loops, listeners, HTTP connections,
/// static files, health and metrics. Its routes come in a `Router` value given to `init`.
public final class HTTPServer: Sendable {
    public let configuration: ServerConfiguration
    public let metrics: MetricsRegistry
    public let staticFiles: StaticFiles
    private let router: Router
    private let serverMetrics: ServerMetrics
    /// The WebSocket sessions' loops and settings, lent to upgrade handlers.
    private let webSockets = WebSocketRuntime()
    private let running = Lock<Running?>(nil)

    private struct Running: Sendable {
        var group: EventLoopGroup
        var listeners: [TCPListener]
        var context: ServerContext
    }

    public init(configuration: ServerConfiguration, router: Router = Router(), metrics: MetricsRegistry = MetricsRegistry()) {
        self.configuration = configuration
        self.metrics = metrics
        self.staticFiles = configuration.publicDirectory.map(StaticFiles.init(root:))
            ?? StaticFiles(bundle: configuration.pageBundle ?? PageBundle(files: [], modifiedSeconds: 0))
        self.serverMetrics = ServerMetrics(registry: metrics)
        var router = router
        if router.exact["/healthz"] == nil {
            router.handle("/healthz") { _, responder in responder.respond(.text(.ok, "ok")) }
        }
        if configuration.servesMetrics && router.exact["/metrics"] == nil {
            router.handle("/metrics") { [metrics] _, responder in
                responder.respond(HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                                               body: Array(metrics.render().utf8)))
            }
        }
        webSockets.bind(allowedOrigins: configuration.allowedOrigins, trustedProxies: configuration.trustedProxies,
                        metrics: metrics)
        for install in router.metricsInstallers { install(metrics) }
        self.router = router
    }

    /// The loops, once started (for code that needs to run timers or tasks on them).
    public var eventLoopGroup: EventLoopGroup? { running.withLock { $0?.group } }

    /// Loads `Public/`, starts the loops and listens. Returns the bound port.
    @discardableResult
    public func start() throws(ServerError) -> Int {
        if configuration.servesFiles { try staticFiles.reload() }
        let loopCount = configuration.loopCount > 0 ? configuration.loopCount : EventLoopGroup.coreCount
        let group: EventLoopGroup
        var listeners: [TCPListener] = []
        do {
            // One more loop than listeners: the interactive loop, where calculator sessions
            // live, does no broadcasting (`WebSocketEndpointConfiguration.prefersInteractiveLoop`).
            group = try EventLoopGroup(loopCount: loopCount + 1, sendBatching: configuration.ioUring ? .automatic : .off)
        } catch {
            throw .cannotListen(host: configuration.host, port: configuration.port, reason: error.description)
        }
        do {
            // One listener per loop on the same port: the kernel spreads connections.
            var port = configuration.port
            for _ in 0..<loopCount {
                let listener = try TCPListener(host: configuration.host, port: port, reusePort: true)
                port = listener.port
                listeners.append(listener)
            }
        } catch {
            for listener in listeners { listener.close() }
            group.shutdown()
            throw .cannotListen(host: configuration.host, port: configuration.port, reason: error.description)
        }
        let context = ServerContext(configuration: configuration, router: router, staticFiles: staticFiles,
                                    metrics: serverMetrics, webSockets: webSockets, loops: group.loops)
        // Weak: the runtime keeps this closure, and the context keeps the runtime.
        let interactive = WebSocketRuntime.InteractiveLoop(loop: group.loops[loopCount]) { [weak context] connection in
            guard let context else { return }
            Self.register(connection, context: context)
        }
        webSockets.attach(loops: group.loops, interactive: interactive)
        for (listener, loop) in zip(listeners, group.loops) {
            listener.start(on: loop) { connection in Self.accept(connection, context: context) }
        }
        if let interval = configuration.staticReloadInterval, configuration.servesFiles { staticFiles.startWatching(every: interval) }
        running.withLock { $0 = Running(group: group, listeners: listeners, context: context) }
        return listeners[0].port
    }

    private static func accept(_ connection: TCPConnection, context: ServerContext) {
        let loopState = context.state(for: connection.loop)
        let open = register(connection, context: context)
        context.metrics.acceptedConnections.increment()
        if open > context.configuration.maxConnections || context.isShuttingDown {
            context.metrics.rejectedConnections.increment()
            connection.handler = RejectingConnection(context: context, loopState: loopState, connection: connection)
        } else {
            connection.handler = HTTPServerConnection(context: context, loopState: loopState, connection: connection)
        }
    }

    /// Counts and tracks `connection` on its loop until it closes (or moves to another loop,
    /// where it is registered again). Returns the number of open connections.
    @discardableResult
    private static func register(_ connection: TCPConnection, context: ServerContext) -> Int {
        let loopState = context.state(for: connection.loop)
        let open = context.openConnections.wrappingAdd(1, ordering: .relaxed).newValue
        context.metrics.openConnections.increment()
        loopState.track(connection)
        connection.onClose = { [unowned connection] in
            context.openConnections.wrappingSubtract(1, ordering: .relaxed)
            context.metrics.openConnections.decrement()
            loopState.untrack(connection)
        }
        return open
    }

    /// Re-reads `Public/` (e.g. on SIGHUP). Call off the loops; errors keep the old files.
    public func reloadStaticFiles() throws(ServerError) {
        try staticFiles.reload()
    }

    /// Graceful shutdown: stop accepting, let in-flight responses finish (up to
    /// `configuration.shutdownGrace`), then close everything and stop the loops.
    /// Blocks until done; safe to call twice.
    public func shutdown() {
        guard let running = running.withLock({ state -> Running? in
            let current = state
            state = nil
            return current
        }) else { return }
        staticFiles.stopWatching()
        running.context.shuttingDown.store(true, ordering: .releasing)
        for listener in running.listeners { listener.close() }
        for state in running.context.loopStates {
            state.loop.execute {
                for connection in state.openConnections {
                    if let handler = connection.handler as? GracefulShutdownHandling {
                        handler.beginGracefulShutdown(of: connection)
                    } else {
                        connection.close()
                    }
                }
            }
        }
        let deadline = MonotonicClock.nanoseconds() + configuration.shutdownGrace.nanosecondsValue
        while running.context.openConnections.load(ordering: .relaxed) > 0 && MonotonicClock.nanoseconds() < deadline {
            usleep(5_000)
        }
        running.group.shutdown()
    }
}
