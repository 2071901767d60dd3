import Server
import Dispatch
import HTTPCore
import Posix
import Synchronization

/// The calculator channel of one server: its session store, `/ws/calc`, `/api/calc` and
/// their metrics. `install` adds all three to a router.
final class CalcService: Sendable {
    static let webSocketPath = "/ws/calc"
    static let apiPath = "/api/calc"

    /// Messages up to `CalcClientMessage.maxBytes` are read, larger ones up to this are
    /// answered `too_large`; beyond it the socket closes with 1009.
    static let endpointConfiguration = WebSocketEndpointConfiguration(maxMessageSize: 64 * 1024, prefersInteractiveLoop: true)

    enum Via: Sendable { case webSocket, api }

    let store: CalcSessionStore
    /// How often kept sessions are checked for expiry while any are kept.
    let sweepInterval: Duration
    /// Runs `/api/calc` evaluations one at a time, off the event loops: a long key list costs
    /// seconds, and a flood of them then takes one core, not all of them.
    let apiQueue = DispatchQueue(label: "tombola.calc.api")
    /// Computes digits requests of `/ws/calc` one at a time, off the interactive loop (each is
    /// bounded by `CalculatorValue.workLimit`, and each socket's by its `DigitsBudget`).
    let digitsQueue = DispatchQueue(label: "tombola.calc.digits")
    private let wsKeys = AtomicLazyReference<MetricsCounter>()
    private let apiKeys = AtomicLazyReference<MetricsCounter>()

    init(store: CalcSessionStore = CalcSessionStore(), sweepInterval: Duration = .seconds(30)) {
        self.store = store
        self.sweepInterval = sweepInterval
    }

    static func install(into router: inout Router, service: CalcService = CalcService()) {
        let path = webSocketPath
        router.upgrade(prefix: path) { request, connection, leftover, server in
            guard request.head.path == path else { return .rejected(.text(.notFound)) }
            return WebSocketUpgrade.perform(request: request, connection: connection, leftover: leftover,
                                            configuration: endpointConfiguration, server: server) { socket in
                CalcConnection.accept(socket, service: service)
            }
        }
        router.handle(apiPath, methods: ["POST"]) { request, responder in
            CalcAPI.respond(to: request, responder: responder, service: service)
        }
        router.onMetrics { registry in service.registerMetrics(in: registry) }
    }

    func registerMetrics(in registry: MetricsRegistry) {
        let store = self.store
        registry.gauge("tombola_calc_sessions_open", help: "Calculator sessions held by an open /ws/calc socket.") {
            Double(store.heldCount)
        }
        registry.gauge("tombola_calc_sessions_stored",
                       help: "Calculator sessions stored: open ones plus those kept for a resume after their socket closed.") {
            Double(store.count)
        }
        let help = "Calculator keys applied, by interface."
        _ = wsKeys.storeIfNil(registry.counter("tombola_calc_keys_applied_total", help: help, labels: [("via", "ws")]))
        _ = apiKeys.storeIfNil(registry.counter("tombola_calc_keys_applied_total", help: help, labels: [("via", "api")]))
    }

    func countKeys(_ count: Int, via: Via) {
        switch via {
        case .webSocket: wsKeys.load()?.increment(by: count)
        case .api: apiKeys.load()?.increment(by: count)
        }
    }

    /// Runs `store.sweep()` every `sweepInterval` on `loop` while sessions are kept. Call on
    /// `loop` after `store.release` returned true.
    func startSweeping(on loop: EventLoop) {
        let store = self.store
        let interval = sweepInterval
        func tick() {
            if store.sweep() { loop.scheduleTimer(after: interval, tick) }
        }
        loop.scheduleTimer(after: interval, tick)
    }
}
