import HTTPCore
import Posix
import Locking

/// What WebSocket endpoints share with the server they run in: the extra allowed origins
/// and the metrics (bound when the `Server` is made), and one session registry per event
/// loop (attached when it starts). `Router` carries it, so endpoints registered before the
/// server exists still find it. Looked up once per handshake, never per message.
final class WebSocketRuntime: Sendable {
    private struct Binding: Sendable {
        var allowedOrigins: [String] = []
        var trustedProxies = TrustedProxies()
        var metrics: WebSocketMetrics?
        var loops: [WebSocketLoopSessions] = []
        var interactive: InteractiveLoop?
    }

    /// The loop that serves `prefersInteractiveLoop` endpoints, and the server's bookkeeping
    /// for a connection that moves there.
    struct InteractiveLoop: Sendable {
        let loop: EventLoop
        let adopt: @Sendable (TCPConnection) -> Void
    }

    private let binding = Lock(Binding())

    init() {}

    /// Called by `Server.init`.
    func bind(allowedOrigins: [String], trustedProxies: TrustedProxies = TrustedProxies(), metrics: MetricsRegistry) {
        let metrics = WebSocketMetrics(registry: metrics)
        binding.withLock {
            $0.allowedOrigins = allowedOrigins
            $0.trustedProxies = trustedProxies
            $0.metrics = metrics
        }
    }

    /// Called by `Server.start` with every loop, before any connection is accepted.
    func attach(loops: [EventLoop], interactive: InteractiveLoop? = nil) {
        binding.withLock {
            $0.loops = loops.map(WebSocketLoopSessions.init)
            $0.interactive = interactive
        }
    }

    /// Where sessions of interactive endpoints live; nil outside a `Server`.
    var interactiveLoop: InteractiveLoop? { binding.withLock { $0.interactive } }

    struct Snapshot {
        var allowedOrigins: [String]
        var trustedProxies: TrustedProxies
        var metrics: WebSocketMetrics
        var loopSessions: WebSocketLoopSessions
        /// Every loop's registry, in loop order (for broadcast groups).
        var allLoops: [WebSocketLoopSessions]
    }

    /// What a new session on `loop` needs. Creates what is missing when the router runs
    /// outside a `Server` (tests that drive it directly).
    func snapshot(for loop: EventLoop) -> Snapshot {
        binding.withLock { binding in
            if binding.metrics == nil { binding.metrics = WebSocketMetrics(registry: MetricsRegistry()) }
            let sessions: WebSocketLoopSessions
            if let existing = binding.loops.first(where: { $0.loop === loop }) {
                sessions = existing
            } else {
                sessions = WebSocketLoopSessions(loop: loop)
                binding.loops.append(sessions)
            }
            return Snapshot(allowedOrigins: binding.allowedOrigins, trustedProxies: binding.trustedProxies, metrics: binding.metrics!,
                            loopSessions: sessions, allLoops: binding.loops)
        }
    }
}

/// The WebSocket sessions of one loop and their heartbeat sweep: one coarse timer per loop
/// (not one per connection) drives every session's pings, idle drop and close timeout.
///
/// `@unchecked Sendable`: made off the loop, then every stored property is used only on
/// `loop`'s thread.
final class WebSocketLoopSessions: @unchecked Sendable {
    static let defaultSweepInterval = Duration.seconds(1)

    let loop: EventLoop
    private var sessions: [WebSocketSession] = []
    private var sweepInterval = WebSocketLoopSessions.defaultSweepInterval
    private var timer: ScheduledTimer?

    init(loop: EventLoop) {
        self.loop = loop
    }

    var count: Int { sessions.count }

    func add(_ session: WebSocketSession, sweepInterval wanted: Duration) {
        session.registryIndex = sessions.count
        sessions.append(session)
        if wanted < sweepInterval {
            sweepInterval = wanted
            timer?.cancel()
            timer = nil
        }
        if timer == nil { scheduleSweep() }
    }

    func remove(_ session: WebSocketSession) {
        let index = session.registryIndex
        guard index >= 0, index < sessions.count, sessions[index] === session else { return }
        session.registryIndex = -1
        let last = sessions.removeLast()
        if index < sessions.count {
            sessions[index] = last
            last.registryIndex = index
        }
        if sessions.isEmpty {
            timer?.cancel()
            timer = nil
            sweepInterval = Self.defaultSweepInterval
            sessions = []
        }
    }

    private func scheduleSweep() {
        timer = loop.scheduleTimer(after: sweepInterval) { [weak self] in self?.sweep() }
    }

    private func sweep() {
        timer = nil
        let now = ContinuousClock.now
        // Sessions leave the array only in the loop's close phase, never during this pass.
        var index = 0
        while index < sessions.count {
            sessions[index].sweep(now: now)
            index += 1
        }
        if !sessions.isEmpty { scheduleSweep() }
    }
}
