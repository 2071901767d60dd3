import RedisStore
import JSON
import Locking
import Server
import Synchronization

/// `GET /readyz`: whether this instance should be sent traffic. Not ready while it drains
/// (after SIGTERM), when its database refuses a write, and in cluster mode when Redis is not
/// reachable or not durable (`appendonly yes` + `appendfsync always`, unless
/// `--allow-unsafe-redis`). `/healthz` stays "the process answers".
///
/// A check writes (one synced SQLite commit) and asks Redis, so checks are shared: requests
/// that arrive while one runs wait for it, and a result is reused for `freshness`.
public final class Readiness: Sendable {
    /// Why this instance is not ready (the `reason` of the 503).
    enum Reason: String, Sendable {
        case draining
        case databaseUnwritable = "database_unwritable"
        case redisUnreachable = "redis_unreachable"
        case redisNotDurable = "redis_not_durable"
    }

    typealias Completion = @Sendable (Reason?) -> Void

    private struct State: Sendable {
        var last: (at: ContinuousClock.Instant, reason: Reason?)?
        /// Callers waiting for the check in flight; nil when none runs.
        var waiting: [Completion]?
    }

    static let freshness: Duration = .seconds(1)
    private let draining = Atomic<Bool>(false)
    private let state = Lock(State())

    init() {}

    /// From now on `/readyz` answers 503 `draining` (SIGTERM: load balancers stop sending
    /// new clients while the ones here finish).
    public func beginDraining() { draining.store(true, ordering: .relaxed) }

    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Calls `completion` (on any thread) with nil when ready, else the reason.
    func check(_ service: DrawService, _ completion: @escaping Completion) {
        if isDraining { return completion(.draining) }
        let now = ContinuousClock.now
        let start = state.withLock { state -> Bool? in
            if let last = state.last, now - last.at < Self.freshness { return nil }
            if state.waiting != nil {
                state.waiting!.append(completion)
                return false
            }
            state.waiting = [completion]
            return true
        }
        guard let start else { return completion(state.withLock { $0.last?.reason }) }
        guard start else { return }
        probe(service) { [self] reason in
            let waiting = state.withLock { state -> [Completion] in
                state.last = (ContinuousClock.now, reason)
                defer { state.waiting = nil }
                return state.waiting ?? []
            }
            for waiter in waiting { waiter(isDraining ? .draining : reason) }
        }
    }

    private func probe(_ service: DrawService, _ completion: @escaping Completion) {
        service.storage.async({ database in try database.probeWrite() }) { result in
            if case .failure(let error) = result {
                Log.error("readyz.database", "the database refused a write: \(error)")
                return completion(.databaseUnwritable)
            }
            guard let cluster = service.cluster else { return completion(nil) }
            cluster.loop.execute {
                guard cluster.client.state == .ready else { return completion(.redisUnreachable) }
                cluster.store.checkDurability(allowUnsafe: cluster.settings.allowUnsafeRedis) { result in
                    switch result {
                    case .success: completion(nil)
                    case .failure(.notDurable): completion(.redisNotDurable)
                    case .failure: completion(.redisUnreachable)
                    }
                }
            }
        }
    }

    /// The `/readyz` route: 200 `{"ready":true}` or 503 `{"ready":false,"reason":…}`, never cached.
    static func install(into router: inout Router, service: DrawService) {
        router.handle("/readyz", methods: ["GET", "HEAD"]) { _, responder in
            service.readiness.check(service) { reason in
                var members: [String: JSONValue] = ["ready": .bool(reason == nil)]
                if let reason { members["reason"] = .string(reason.rawValue) }
                var response = HTTPResponse.json(reason == nil ? .ok : .serviceUnavailable, JSONValue.object(members).canonicalBytes)
                response.headers.add(name: "Cache-Control", value: "no-store")
                responder.respond(response)
            }
        }
    }
}
