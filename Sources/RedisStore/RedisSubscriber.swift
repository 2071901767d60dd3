import Posix

/// Pub/Sub on a dedicated connection (a subscribed connection can run nothing else). It
/// reconnects by itself and subscribes again to every channel it holds; messages published
/// while it was away are lost (Pub/Sub delivers at most once), so `onReady` tells the owner
/// when the subscriptions are live again: that is when it resyncs from the round log.
///
/// `@unchecked Sendable`: mutable state is used only on `loop`'s thread; `start`/`close` hop there.
public final class RedisSubscriber: @unchecked Sendable {
    public let endpoint: RedisEndpoint
    public let loop: EventLoop
    public let options: RedisOptions

    private var supervisor: RedisConnectionSupervisor?
    private var handlers: [String: ([UInt8]) -> Void] = [:]
    /// Channels whose SUBSCRIBE the current connection has confirmed.
    private var confirmed: Set<String> = []
    private var isClosed = false
    private var announcedReady = false
    private var readyHandlers: [() -> Void] = []
    /// Behind Sentinel: follows the primary it names (`endpoint` gives only password and database).
    public let locator: RedisPrimaryLocator?
    /// Where each attempt connects (set before `start`); nil: `endpoint`, or the locator's primary.
    var resolveEndpoint: ((@escaping (RedisEndpoint?) -> Void) -> Void)?

    public init(endpoint: RedisEndpoint, loop: EventLoop, options: RedisOptions = RedisOptions(), locator: RedisPrimaryLocator? = nil) {
        self.endpoint = endpoint
        self.loop = loop
        self.options = options
        self.locator = locator
    }

    /// Starts connecting. Any thread.
    public func start() {
        loop.execute { self.startOnLoop() }
    }

    /// Unsubscribes from everything by dropping the connection. Any thread.
    public func close() {
        if loop.inEventLoop { closeOnLoop() } else { loop.execute { self.closeOnLoop() } }
    }

    /// Calls `handler` each time every held channel is confirmed: after the first connect,
    /// after each reconnect, and after a new channel is added. Loop only.
    public func onReady(_ handler: @escaping () -> Void) {
        precondition(loop.inEventLoop, "RedisSubscriber used off its loop")
        readyHandlers.append(handler)
    }

    /// Delivers every message published on `channel`, in publication order, to `handler`
    /// (replacing an earlier handler for it). Loop only.
    public func subscribe(_ channel: String, handler: @escaping ([UInt8]) -> Void) {
        precondition(loop.inEventLoop, "RedisSubscriber used off its loop")
        let isNew = handlers[channel] == nil
        handlers[channel] = handler
        guard isNew, supervisor?.state == .ready, let connection = supervisor?.connection else { return }
        announcedReady = false
        connection.sendSubscription([Array("SUBSCRIBE".utf8), Array(channel.utf8)])
    }

    /// Stops delivering `channel`. Loop only.
    public func unsubscribe(_ channel: String) {
        precondition(loop.inEventLoop, "RedisSubscriber used off its loop")
        guard handlers.removeValue(forKey: channel) != nil else { return }
        confirmed.remove(channel)
        guard supervisor?.state == .ready, let connection = supervisor?.connection else { return }
        connection.sendSubscription([Array("UNSUBSCRIBE".utf8), Array(channel.utf8)])
    }

    /// Channels confirmed on the current connection. Loop only.
    public var liveChannels: Set<String> { confirmed }

    /// The connection's state. Loop only.
    public var state: RedisConnectionState { isClosed ? .closed : (supervisor?.state ?? .waiting) }

    /// Times the connection has become ready. Loop only.
    public var readyCount: Int { supervisor?.readyCount ?? 0 }

    private func startOnLoop() {
        guard !isClosed, supervisor == nil else { return }
        let supervisor = RedisConnectionSupervisor(endpoint: endpoint, loop: loop, options: options) { [weak self] push in
            self?.received(push)
        }
        supervisor.onStateChange = { [weak self] state in self?.stateChanged(state) }
        if let locator {
            supervisor.follow(locator, requireDurable: false)
        } else if let resolveEndpoint {
            supervisor.resolve = resolveEndpoint
        }
        self.supervisor = supervisor
        supervisor.start()
    }

    private func closeOnLoop() {
        guard !isClosed else { return }
        isClosed = true
        supervisor?.stop()
        supervisor = nil
        handlers = [:]
        readyHandlers = []
    }

    private func stateChanged(_ state: RedisConnectionState) {
        confirmed = []
        announcedReady = false
        guard state == .ready, let connection = supervisor?.connection else { return }
        if handlers.isEmpty {
            announceIfComplete()
            return
        }
        connection.sendSubscription([Array("SUBSCRIBE".utf8)] + handlers.keys.sorted().map { Array($0.utf8) })
    }

    private func received(_ push: RedisReply) {
        guard let parts = push.array, parts.count >= 3, let kind = parts[0].string, let channel = parts[1].string else { return }
        switch kind {
        case "message":
            if case .bulk(let payload) = parts[2] { handlers[channel]?(payload) }
        case "subscribe":
            if handlers[channel] != nil { confirmed.insert(channel) }
            announceIfComplete()
        default:
            break
        }
    }

    private func announceIfComplete() {
        guard !announcedReady, confirmed.count == handlers.count else { return }
        announcedReady = true
        for handler in readyHandlers { handler() }
    }
}
