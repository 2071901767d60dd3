import Posix

/// A Redis client on one of our loops: commands with typed replies and timeouts, over one
/// hiredis connection that reconnects by itself. Commands go out pipelined; their replies
/// come back in order.
///
/// Commands issued while the connection is down wait in a bounded queue until it is ready
/// again, each under its own timeout: a command that times out in the queue is never sent.
/// A command that times out after it was sent resets the connection (its reply would
/// otherwise be handed to the next command) and its outcome is unknown; callers make
/// writes idempotent (the round log's idempotency key) and retry.
///
/// `@unchecked Sendable`: every stored property except the immutable ones is used only on
/// `loop`'s thread; the public entry points that accept any thread hop there with `execute`.
/// Call `close()` when done: a started client keeps itself alive through its loop's timers.
public final class RedisClient: @unchecked Sendable {
    public let endpoint: RedisEndpoint
    public let loop: EventLoop
    public let options: RedisOptions

    private struct Waiting {
        var arguments: [[UInt8]]
        var completion: (Result<RedisReply, RedisError>) -> Void
        var timer: ScheduledTimer?
    }

    private var supervisor: RedisConnectionSupervisor?
    private var queue: [UInt64: Waiting] = [:]
    private var queueOrder: [UInt64] = []
    private var inFlight: [UInt64: Waiting] = [:]
    private var nextID: UInt64 = 1
    private var isClosed = false
    private var stateHandlers: [(RedisConnectionState) -> Void] = []

    /// Behind Sentinel: the locator naming the primary (`endpoint` then gives only the password
    /// and database), and whether each new primary must pass the durability check.
    public let locator: RedisPrimaryLocator?
    private let requireDurable: Bool

    /// Creates a client; nothing happens until `start()`. Any thread. With `locator`, every
    /// (re)connect asks Sentinel for the primary, follows `+switch-master` at once, and is
    /// ready only on a server whose `ROLE` is master and (with `requireDurable`) whose AOF is
    /// fsynced on every write.
    public init(endpoint: RedisEndpoint, loop: EventLoop, options: RedisOptions = RedisOptions(),
                locator: RedisPrimaryLocator? = nil, requireDurable: Bool = true) {
        self.endpoint = endpoint
        self.loop = loop
        self.options = options
        self.locator = locator
        self.requireDurable = requireDurable
    }

    /// Where the current connection goes (the primary, behind Sentinel), for logs. Loop only.
    public var connectedTo: RedisEndpoint? { supervisor?.connectedTo }

    /// Starts connecting. Any thread.
    public func start() {
        loop.execute { self.startOnLoop() }
    }

    /// Fails every waiting command with `.closed` and drops the connection. Any thread.
    public func close() {
        if loop.inEventLoop { closeOnLoop() } else { loop.execute { self.closeOnLoop() } }
    }

    // MARK: On the loop

    /// The connection's state. Loop only.
    public var state: RedisConnectionState {
        precondition(loop.inEventLoop, "RedisClient used off its loop")
        return isClosed ? .closed : (supervisor?.state ?? .waiting)
    }

    /// Times the connection has become ready (1 after the first connect). Loop only.
    public var readyCount: Int { supervisor?.readyCount ?? 0 }

    /// Why the last attempt failed, for logs (never contains the password). Loop only.
    public var lastFailure: String? { supervisor?.lastFailure }

    /// Calls `handler` on every state change. Loop only.
    public func observeState(_ handler: @escaping (RedisConnectionState) -> Void) {
        precondition(loop.inEventLoop, "RedisClient used off its loop")
        stateHandlers.append(handler)
    }

    /// Sends one command. `completion` runs exactly once, on the loop, never inside this call.
    public func send(
        _ arguments: [[UInt8]], timeout: Duration? = nil,
        _ completion: @escaping (Result<RedisReply, RedisError>) -> Void
    ) {
        precondition(loop.inEventLoop, "RedisClient used off its loop")
        precondition(!arguments.isEmpty, "a Redis command needs a name")
        if isClosed {
            loop.scheduleTimer(after: .zero) { completion(.failure(.closed)) }
            return
        }
        if supervisor?.state != .ready && queue.count >= options.maximumQueued {
            loop.scheduleTimer(after: .zero) { completion(.failure(.queueFull)) }
            return
        }
        let id = nextID
        nextID += 1
        var waiting = Waiting(arguments: arguments, completion: completion)
        waiting.timer = loop.scheduleTimer(after: timeout ?? options.commandTimeout) { [weak self] in
            self?.timedOut(id)
        }
        if supervisor?.state == .ready {
            transmit(id, waiting)
        } else {
            queue[id] = waiting
            queueOrder.append(id)
        }
    }

    /// `send` with text arguments.
    public func send(
        _ arguments: [String], timeout: Duration? = nil,
        _ completion: @escaping (Result<RedisReply, RedisError>) -> Void
    ) {
        send(arguments.map { Array($0.utf8) }, timeout: timeout, completion)
    }

    // MARK: From any thread

    /// Sends one command from any thread and waits for its outcome.
    public func command(_ arguments: [[UInt8]], timeout: Duration? = nil) async -> Result<RedisReply, RedisError> {
        await onLoop { done in self.send(arguments, timeout: timeout, done) }
    }

    /// `command` with text arguments.
    public func command(_ arguments: [String], timeout: Duration? = nil) async -> Result<RedisReply, RedisError> {
        await command(arguments.map { Array($0.utf8) }, timeout: timeout)
    }

    /// Runs `body` on the loop and waits for the value it hands to `done` (exactly once).
    public func onLoop<T: Sendable>(_ body: @escaping @Sendable (@escaping (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { continuation in
            loop.execute { body { continuation.resume(returning: $0) } }
        }
    }

    // MARK: Internals

    private func startOnLoop() {
        guard !isClosed, supervisor == nil else { return }
        let supervisor = RedisConnectionSupervisor(endpoint: endpoint, loop: loop, options: options)
        supervisor.onStateChange = { [weak self] state in self?.stateChanged(state) }
        if let locator {
            supervisor.follow(locator, requireDurable: requireDurable)
        }
        self.supervisor = supervisor
        supervisor.start()
    }

    private func closeOnLoop() {
        guard !isClosed else { return }
        isClosed = true
        // Take the waiting commands first, so dropping the connection cannot answer them
        // with `.connectionLost`: they get `.closed`.
        let waiting = queueOrder.compactMap { queue[$0] } + inFlight.values
        queue = [:]
        queueOrder = []
        inFlight = [:]
        supervisor?.stop()
        supervisor = nil
        for entry in waiting {
            entry.timer?.cancel()
            entry.completion(.failure(.closed))
        }
        stateHandlers = []
    }

    private func stateChanged(_ state: RedisConnectionState) {
        if state == .ready {
            let order = queueOrder
            queueOrder = []
            for id in order {
                guard let waiting = queue.removeValue(forKey: id) else { continue }
                transmit(id, waiting)
            }
        }
        for handler in stateHandlers { handler(state) }
    }

    private func transmit(_ id: UInt64, _ waiting: Waiting) {
        guard let connection = supervisor?.connection else {
            queue[id] = waiting
            queueOrder.append(id)
            return
        }
        inFlight[id] = waiting
        connection.send(waiting.arguments) { [weak self] result in
            guard let self, let entry = self.inFlight.removeValue(forKey: id) else { return }
            entry.timer?.cancel()
            entry.completion(result)
        }
    }

    private func timedOut(_ id: UInt64) {
        if let waiting = queue.removeValue(forKey: id) {
            queueOrder.removeAll { $0 == id }
            waiting.completion(.failure(.timedOut))
        } else if let waiting = inFlight.removeValue(forKey: id) {
            waiting.completion(.failure(.timedOut))
            supervisor?.reset(reason: .timedOut)
        }
    }
}
