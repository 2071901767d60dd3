import Glibc
import Locking
import Posix

/// A webhook as the host configured it.
public struct WebhookHook: Sendable, Equatable {
    public var id: String
    public var target: WebhookTarget
    public var format: WebhookFormat
    /// Signs generic deliveries (shown to the host once, when the hook is made).
    public var secret: String
    public var events: Set<WebhookEvent.Kind>
    /// The language of a chat message (`en`, `zh`).
    public var language: String

    public init(id: String, target: WebhookTarget, format: WebhookFormat, secret: String,
                events: Set<WebhookEvent.Kind> = Set(WebhookEvent.Kind.allCases), language: String = "en") {
        self.id = id
        self.language = language
        self.target = target
        self.format = format
        self.secret = secret
        self.events = events
    }
}

/// What the host page lists beside a hook.
public struct WebhookStatus: Sendable, Equatable {
    /// The last attempt: its HTTP status (0: no answer) and error, and when (unix ms).
    public var lastStatus: Int?
    public var lastError: String?
    public var lastAttemptAt: Int64?
    public var delivered = 0
    /// Events given up on (after every retry, or refused at once: a private address, a 4xx).
    public var failed = 0
    /// Events dropped because the queue was full (a receiver down for long under many events).
    public var dropped = 0
    public var pending = 0

    public init() {}
}

/// Delivers events to hooks off every event loop: one queue per hook, drained in order by a
/// thread of its own (`DetachedThread`) that retries a failing delivery with back-off before the
/// next event (so a receiver sees one hook's events in the order they happened). `deliver`
/// only appends to a queue: it never blocks the room.
public final class WebhookDispatcher: Sendable {
    /// Waits before the 2nd, 3rd, … attempt: 1 s, 5 s, 30 s, 2 min, 10 min (six attempts).
    public static let defaultRetryDelays: [Duration] = [.seconds(1), .seconds(5), .seconds(30), .seconds(120), .seconds(600)]

    let allowPrivate: Bool
    let retryDelays: [Duration]
    let timeoutMillis: Int
    let maxQueued: Int
    let nowMillis: @Sendable () -> Int64
    /// Told each hook's status after every attempt and every finished event (cluster mode keeps
    /// it in Redis, so every instance lists it). On the delivering thread.
    let onStatus: (@Sendable (String, WebhookStatus) -> Void)?

    private struct Queue {
        var hook: WebhookHook
        var events: [WebhookEvent] = []
        var running = false
        var status = WebhookStatus()
    }

    private let queues = Lock<[String: Queue]>([:])

    public init(allowPrivate: Bool, retryDelays: [Duration] = WebhookDispatcher.defaultRetryDelays, timeoutMillis: Int = 10_000,
                maxQueued: Int = 1_000, nowMillis: @escaping @Sendable () -> Int64 = WebhookDispatcher.clockMillis,
                onStatus: (@Sendable (String, WebhookStatus) -> Void)? = nil) {
        self.onStatus = onStatus
        self.allowPrivate = allowPrivate
        self.retryDelays = retryDelays
        self.timeoutMillis = timeoutMillis
        self.maxQueued = maxQueued
        self.nowMillis = nowMillis
    }

    public static func clockMillis() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Queues `event` for `hook` when the hook wants its kind. Never blocks.
    public func deliver(_ event: WebhookEvent, to hook: WebhookHook) {
        guard hook.events.contains(event.kind) else { return }
        let start: Bool = queues.withLock { queues in
            var queue = queues[hook.id] ?? Queue(hook: hook)
            queue.hook = hook
            if queue.events.count >= maxQueued {
                queue.events.removeFirst()
                queue.status.dropped += 1
            }
            queue.events.append(event)
            queue.status.pending = queue.events.count
            let start = !queue.running
            queue.running = true
            queues[hook.id] = queue
            return start
        }
        if start, !DetachedThread.start({ [self] in drain(hook.id) }) {
            queues.withLock { queues in
                queues[hook.id]?.running = false
                queues[hook.id]?.status.lastError = "the system refused a thread"
            }
        }
    }

    public func status(of id: String) -> WebhookStatus {
        queues.withLock { $0[id]?.status ?? WebhookStatus() }
    }

    /// Forgets a deleted hook (events still queued for it are not sent).
    public func remove(_ id: String) {
        queues.withLock { queues in queues[id]?.events.removeAll() }
    }

    private func drain(_ id: String) {
        while let (hook, event) = next(id) {
            let delivered = send(event, to: hook)
            queues.withLock { queues in
                guard var queue = queues[id] else { return }
                if !queue.events.isEmpty, queue.events[0].id == event.id { queue.events.removeFirst() }
                if delivered { queue.status.delivered += 1 } else { queue.status.failed += 1 }
                queue.status.pending = queue.events.count
                queues[id] = queue
            }
            report(id)
        }
    }

    private func report(_ id: String) {
        guard let onStatus else { return }
        onStatus(id, status(of: id))
    }

    /// The hook's oldest event, or nil (and the queue marked idle) when there is none.
    private func next(_ id: String) -> (WebhookHook, WebhookEvent)? {
        queues.withLock { queues in
            guard let queue = queues[id], let event = queue.events.first else {
                queues[id]?.running = false
                return nil
            }
            return (queue.hook, event)
        }
    }

    /// Every attempt for one event; whether it was delivered.
    private func send(_ event: WebhookEvent, to hook: WebhookHook) -> Bool {
        let body = hook.format.body(event, language: hook.language)
        var attempt = 0
        while true {
            let outcome = post(event, body: body, to: hook)
            queues.withLock { queues in
                queues[hook.id]?.status.lastStatus = outcome.status
                queues[hook.id]?.status.lastError = outcome.error
                queues[hook.id]?.status.lastAttemptAt = nowMillis()
            }
            report(hook.id)
            if outcome.delivered { return true }
            guard outcome.retryable, attempt < retryDelays.count, !removed(hook.id, event.id) else { return false }
            Self.sleep(retryDelays[attempt])
            attempt += 1
        }
    }

    private func removed(_ id: String, _ event: String) -> Bool {
        queues.withLock { $0[id]?.events.first?.id != event }
    }

    private func post(_ event: WebhookEvent, body: [UInt8], to hook: WebhookHook) -> WebhookAttempt {
        if !hook.target.https && !allowPrivate {
            return WebhookAttempt(status: 0, error: "refused: plain http (only https, unless --webhook-allow-private)", refused: true)
        }
        let address: String
        switch hook.target.resolve(allowPrivate: allowPrivate) {
        case .success(let resolved): address = resolved
        case .failure(.privateAddress(let refused)):
            // Not retried: the address will not become public.
            return WebhookAttempt(status: 0, error: "refused: \(refused) is not a public address (--webhook-allow-private)", refused: true)
        case .failure(let other):
            return WebhookAttempt(status: 0, error: "\(other)")
        }
        var headers = ["Content-Type: application/json", "Tombola-Event: \(event.kind.rawValue)", "Tombola-Delivery: \(event.id)"]
        if hook.format.signed {
            headers.append("\(WebhookSignature.header): " + WebhookSignature.value(secret: hook.secret, timestamp: nowMillis() / 1000, body: body))
        }
        return WebhookPoster.post(hook.target, address: address, body: body, headers: headers, timeoutMillis: timeoutMillis)
    }

    private static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var wait = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&wait, &left) != 0 && errno == EINTR { wait = left }
    }
}
