import Posix

/// Timeouts and reconnection policy of a Redis connection.
public struct RedisOptions: Sendable {
    /// How long a command may wait for its reply (queued time included).
    public var commandTimeout: Duration = .seconds(2)
    /// How long connecting plus the handshake (AUTH, SELECT, PING) may take.
    public var connectTimeout: Duration = .seconds(2)
    /// The first wait before reconnecting; it doubles after each failure up to `maximumBackoff`,
    /// and each wait is drawn between half of it and all of it (jitter), so instances that lost
    /// Redis together do not return in step.
    public var initialBackoff: Duration = .milliseconds(50)
    public var maximumBackoff: Duration = .seconds(1)
    /// Commands that may wait for a connection; more fail at once with `.queueFull`.
    public var maximumQueued = 10_000
    /// Replicas that must confirm each write of the cluster store (`WAIT`) before it counts as
    /// done; 0: none are asked (a single Redis). With Sentinel, 1.
    public var replicaAcks = 0
    /// How long `WAIT` may take before the write counts as not replicated.
    public var replicaTimeout: Duration = .seconds(1)

    public init() {}
}

/// Where a connection stands. `ready` means the handshake's PING was answered.
public enum RedisConnectionState: Sendable, Equatable {
    case connecting
    case ready
    /// Lost or never reached; waiting for the next attempt.
    case waiting
    case closed
}

/// Keeps one hiredis connection up for its owner: connects, runs the handshake (AUTH,
/// SELECT, PING; a Redis still loading its AOF answers `LOADING` and counts as not ready),
/// and after a loss waits with exponential backoff and tries again until stopped.
/// Loop-confined.
final class RedisConnectionSupervisor {
    let endpoint: RedisEndpoint
    let loop: EventLoop
    let options: RedisOptions
    private(set) var state: RedisConnectionState = .waiting
    /// The connection, ready or still in its handshake.
    private(set) var connection: HiredisConnection?
    private var attempt = 0
    private var connectTimer: ScheduledTimer?
    private var retryTimer: ScheduledTimer?
    private var onPush: ((RedisReply) -> Void)?
    /// Called on every state change.
    var onStateChange: (RedisConnectionState) -> Void = { _ in }
    /// Times the connection became ready.
    private(set) var readyCount = 0
    /// The last failure, for logs.
    private(set) var lastFailure: String?
    /// Where to connect, asked before each attempt (Sentinel: the current primary); nil: `endpoint`.
    /// The password and database always come from `endpoint`.
    var resolve: ((@escaping (RedisEndpoint?) -> Void) -> Void)?
    /// Run after the handshake's PING on each new connection; a text refuses the connection
    /// (it is closed, `lastFailure` says why, and the next attempt follows the backoff).
    var verify: ((HiredisConnection, @escaping (String?) -> Void) -> Void)?
    /// The address of the current connection (ready or in its handshake).
    private(set) var connectedTo: RedisEndpoint?
    /// Told each address `resolve` gave that could not be used (lost before the handshake and
    /// `verify` were done).
    var onUnusable: ((RedisEndpoint) -> Void)?
    /// The next attempt starts at once (the primary moved), not after the backoff.
    private var retryAtOnce = false
    /// Counts attempts, so a late resolution of an abandoned attempt is ignored.
    private var generation = 0

    init(endpoint: RedisEndpoint, loop: EventLoop, options: RedisOptions, onPush: ((RedisReply) -> Void)? = nil) {
        self.endpoint = endpoint
        self.loop = loop
        self.options = options
        self.onPush = onPush
    }

    func start() {
        guard state == .waiting, connection == nil, retryTimer == nil else { return }
        connect()
    }

    func stop() {
        guard state != .closed else { return }
        set(.closed)
        connectTimer?.cancel()
        retryTimer?.cancel()
        connectTimer = nil
        retryTimer = nil
        onPush = nil
        connection?.close(reason: .closed)
        connection = nil
    }

    /// Drops the current connection (a command timed out) and reconnects after a backoff.
    func reset(reason: RedisError) {
        connection?.close(reason: reason)
    }

    /// The primary is now `primary` (Sentinel announced it): unless already connected there,
    /// drops the connection and connects again at once.
    func follow(_ primary: RedisEndpoint) {
        guard state != .closed else { return }
        if let connectedTo, connectedTo.host == primary.host, connectedTo.port == primary.port { return }
        retryAtOnce = true
        if let connection {
            connection.close(reason: .connectionLost)
        } else if state == .waiting, retryTimer != nil {
            retryTimer?.cancel()
            retryTimer = nil
            connect()
        }
    }

    /// Connects to whichever server `locator` names as the primary, follows its switches, and
    /// is ready only on a primary (`PrimaryCheck`). Before `start`.
    func follow(_ locator: RedisPrimaryLocator, requireDurable: Bool) {
        resolve = { done in locator.locate(done) }
        verify = PrimaryCheck.verify(requireDurable: requireDurable)
        locator.onSwitch { [weak self] primary in self?.follow(primary) }
        onUnusable = { [weak locator] endpoint in locator?.passOver(endpoint) }
    }

    private func connect() {
        lastFailure = nil
        set(.connecting)
        generation += 1
        let attemptNumber = generation
        guard let resolve else { return open(endpoint) }
        connectTimer = loop.scheduleTimer(after: options.connectTimeout) { [weak self] in
            guard let self, self.generation == attemptNumber, self.connection == nil, self.state == .connecting else { return }
            self.lastFailure = "no primary found in time"
            self.lost(reason: "no primary found in time")
        }
        resolve { [weak self] found in
            guard let self, self.generation == attemptNumber, self.connection == nil, self.state == .connecting else { return }
            guard let found else {
                self.lost(reason: "no Sentinel named a primary")
                return
            }
            var target = self.endpoint
            target.host = found.host
            target.port = found.port
            self.connectTimer?.cancel()
            self.connectTimer = nil
            self.open(target)
        }
    }

    private func open(_ target: RedisEndpoint) {
        let connection = HiredisConnection(loop: loop)
        do {
            try connection.connect(host: target.host, port: target.port, onPush: onPush) { [weak self, weak connection] reason in
                guard let self, let connection, self.connection === connection else { return }
                self.lost(reason: "\(reason)" + (connection.lastErrorText.map { " (\($0))" } ?? ""))
            }
        } catch {
            lost(reason: connection.lastErrorText ?? "\(error)")
            return
        }
        self.connection = connection
        connectedTo = target
        connectTimer = loop.scheduleTimer(after: options.connectTimeout) { [weak self, weak connection] in
            guard let self, let connection, self.connection === connection, self.state == .connecting else { return }
            self.lastFailure = "connect timeout"
            connection.close(reason: .timedOut)
        }
        if let password = endpoint.password {
            connection.send([Array("AUTH".utf8), Array(password.utf8)]) { [weak self] result in
                if case .failure(let error) = result { self?.handshakeFailed(connection, error) }
            }
        }
        if endpoint.database != 0 {
            connection.send([Array("SELECT".utf8), Array(String(endpoint.database).utf8)]) { [weak self] result in
                if case .failure(let error) = result { self?.handshakeFailed(connection, error) }
            }
        }
        connection.send([Array("PING".utf8)]) { [weak self, weak connection] result in
            guard let self, let connection, self.connection === connection, self.state == .connecting else { return }
            switch result {
            case .success:
                guard let verify = self.verify else { return self.handshakeDone(connection) }
                verify(connection) { [weak self, weak connection] refusal in
                    guard let self, let connection, self.connection === connection, self.state == .connecting else { return }
                    if let refusal {
                        self.lastFailure = refusal
                        connection.close(reason: .connectionLost)
                    } else {
                        self.handshakeDone(connection)
                    }
                }
            case .failure(let error):
                self.handshakeFailed(connection, error)
            }
        }
    }

    private func handshakeDone(_ connection: HiredisConnection) {
        connectTimer?.cancel()
        connectTimer = nil
        attempt = 0
        readyCount += 1
        set(.ready)
    }

    private func handshakeFailed(_ connection: HiredisConnection, _ error: RedisError) {
        guard self.connection === connection else { return }
        lastFailure = "handshake: \(error)"
        connection.close(reason: error)
    }

    private func lost(reason: String) {
        connectTimer?.cancel()
        connectTimer = nil
        connection = nil
        let target = connectedTo
        connectedTo = nil
        guard state != .closed else { return }
        if lastFailure == nil { lastFailure = reason }
        if resolve != nil, let target {
            // Behind Sentinel the address is not in the settings: say which server failed.
            lastFailure = (lastFailure ?? reason) + " (at \(target.host):\(target.port))"
            if state == .connecting { onUnusable?(target) }
        }
        set(.waiting)
        let base = min(options.initialBackoff * (1 << min(attempt, 20)), options.maximumBackoff)
        attempt += 1
        let delay = retryAtOnce ? .zero : base * Double.random(in: 0.5...1.0)
        retryAtOnce = false
        retryTimer = loop.scheduleTimer(after: delay) { [weak self] in
            guard let self, self.state == .waiting else { return }
            self.retryTimer = nil
            self.connect()
        }
    }

    private func set(_ newState: RedisConnectionState) {
        guard newState != state else { return }
        state = newState
        onStateChange(newState)
    }
}
