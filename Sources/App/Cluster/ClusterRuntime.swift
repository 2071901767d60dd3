import DrawRoomCore
import ClusterCore
import RedisStore
import Dispatch
import DrawEngine
import JSON
import Locking
import Posix
import Server

public struct ClusterStartError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// This instance's part of the cluster: its id, the Redis client and subscriber on the
/// cluster loop (which is also the draw rooms' loop), and one `ClusterDrawNode` per draw of
/// the cluster (the set `tombola:draws`; a draw created on any instance is announced on
/// `tombola:draws:created`, and the set is read again whenever the subscriber reconnects).
///
/// `@unchecked Sendable`: the stored properties are immutable, `table` guards itself.
final class ClusterRuntime: @unchecked Sendable {
    let instanceID: String
    let settings: ClusterSettings
    let group: EventLoopGroup
    let loop: EventLoop
    let client: RedisClient
    let store: ClusterStore
    let subscriber: RedisSubscriber
    /// Behind Sentinel: finds and follows the primary for `client` and `subscriber`.
    let locator: RedisPrimaryLocator?
    let limiter: AuthRateLimiter
    /// The rate limits' buckets shared by every instance (the host-key limiter's and each draw's check-in limits).
    let sharedLimits: SharedRateLimits
    /// Set once in `prepare` (the signer's rotations, read from Redis) before any draw is served.
    private(set) var roomSettings: DrawRoomSettings
    let metrics: DrawMetrics
    /// Every draw's screen branding, in Redis (ClusterBranding.swift).
    let branding: ClusterBranding
    /// Every draw's audit log, in Redis (ClusterAuditLog.swift).
    let audit: ClusterAuditLog
    private let table = Lock<[String: ClusterDrawNode]>([:])
    var nodes: [String: ClusterDrawNode] { table.withLock { $0 } }

    static let drawsKey = "tombola:draws"
    static let createdChannel = "tombola:draws:created"

    private init(settings: ClusterSettings, limiter: AuthRateLimiter, roomSettings: DrawRoomSettings, metrics: DrawMetrics) throws {
        var generator = SystemRandomNumberGenerator()
        instanceID = Hex.encode((0..<6).map { _ in UInt8.random(in: 0...255, using: &generator) })
        self.settings = settings
        self.limiter = limiter
        self.roomSettings = roomSettings
        self.metrics = metrics
        group = try EventLoopGroup(loopCount: 1)
        loop = group.loops[0]
        var options = RedisOptions()
        options.replicaAcks = settings.replicaAcks
        options.replicaTimeout = settings.replicaTimeout
        let loop = loop
        locator = settings.sentinel.map { RedisPrimaryLocator(settings: $0, loop: loop) }
        client = RedisClient(endpoint: settings.endpoint, loop: loop, options: options, locator: locator,
                             requireDurable: !settings.allowUnsafeRedis)
        store = ClusterStore(client: client)
        sharedLimits = SharedRateLimits(client: client)
        limiter.share(sharedLimits, as: "key")
        subscriber = RedisSubscriber(endpoint: settings.endpoint, loop: loop, locator: locator)
        branding = ClusterBranding(client: client)
        audit = ClusterAuditLog(client: client)
    }

    /// Connects, refuses a Redis that would lose acknowledged writes (unless overridden,
    /// loudly), agrees on the default draw with the other instances, and starts competing for
    /// its lease. Blocks (start-up only).
    static func start(settings: ClusterSettings, configuration: AppConfiguration, limiter: AuthRateLimiter,
                      roomSettings: DrawRoomSettings, metrics: DrawMetrics) throws -> (ClusterRuntime, DrawService.DefaultDraw) {
        let runtime = try ClusterRuntime(settings: settings, limiter: limiter, roomSettings: roomSettings, metrics: metrics)
        runtime.locator?.start()
        runtime.client.start()
        let outcome = Lock<Result<DrawService.DefaultDraw, ClusterStartError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result = await runtime.prepare(configuration: configuration)
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        switch outcome.withLock({ $0 })! {
        case .failure(let error):
            runtime.close()
            throw error
        case .success(let defaultDraw):
            return (runtime, defaultDraw)
        }
    }

    private func prepare(configuration: AppConfiguration) async -> Result<DrawService.DefaultDraw, ClusterStartError> {
        let endpoint = settings.redisDescription
        switch await store.checkDurability(allowUnsafe: settings.allowUnsafeRedis) {
        case .failure(.unavailable(let error)):
            // Behind Sentinel a primary that fails its checks (not durable, not the primary) is
            // never connected to: say why.
            let why = await client.onLoop { [client] (done: @escaping (String?) -> Void) in done(client.lastFailure) }
            return .failure(ClusterStartError(description: "cannot reach Redis at \(endpoint): \(error)" + (why.map { " (\($0))" } ?? "")))
        case .failure(let error):
            return .failure(ClusterStartError(description: "\(error) (Redis at \(endpoint); override: --allow-unsafe-redis)"))
        case .success(let report):
            if !report.isDurable {
                let warning = ClusterError.notDurable(appendonly: report.appendonly, appendfsync: report.appendfsync)
                Log.event("cluster.unsafe_redis", level: .error, fields: ["appendonly": .string(report.appendonly),
                                                                             "appendfsync": .string(report.appendfsync)],
                          text: "tombola: WARNING: --allow-unsafe-redis: \(warning)")
            }
        }
        func command(_ arguments: [String]) async -> RedisReply? {
            if case .success(let reply) = await client.command(arguments) { return reply }
            return nil
        }
        // The signing key's hand-overs (issue #47): every export carries them.
        if let signer = roomSettings.signer {
            guard let list = await command(["LRANGE", ClusterSigningRotations.key, "0", "-1"]) else {
                return .failure(ClusterStartError(description: "Redis at \(endpoint) stopped answering during start-up"))
            }
            let (rotations, problem) = ClusterSigningRotations.chain((list.array ?? []).compactMap(\.string), for: signer)
            if let problem {
                Log.error("cluster.signing_rotations", "tombola: WARNING: \(problem); exports carry no hand-over, so records signed"
                          + " by an earlier key do not verify against this one", fields: [:])
            }
            roomSettings.signer = RecordSigner(key: signer.key, rotations: rotations)
        }
        // The default draw: the one given, or the one the first instance made.
        var code = configuration.defaultDrawCode ?? DrawKeys.newCode()
        if configuration.defaultDrawCode == nil {
            guard await command(["SET", "tombola:default-draw", code, "NX"]) != nil,
                  let agreed = await command(["GET", "tombola:default-draw"])?.string else {
                return .failure(ClusterStartError(description: "Redis at \(endpoint) stopped answering during start-up"))
            }
            code = agreed
        }
        let meta = RedisDrawKeys(code: code).meta
        var shownKey: String? = nil
        var created = false
        var keyReset = false
        if let key = configuration.hostKey {
            guard let stored = await command(["HGET", meta, "hostKeyHash"]) else {
                return .failure(ClusterStartError(description: "Redis at \(endpoint) stopped answering during start-up"))
            }
            if let hash = stored.string, DrawKeys.matches(key, storedHash: hash) {
                // Already this key.
            } else {
                keyReset = stored.string != nil
                created = stored.string == nil
                _ = await command(["HSET", meta, "hostKeyHash", DrawKeys.hash(key)])
            }
            shownKey = key
        } else {
            let key = DrawKeys.newSecret()
            if await command(["HSETNX", meta, "hostKeyHash", DrawKeys.hash(key)])?.integer == 1 {
                shownKey = key
                created = true
            }
        }
        _ = await command(["HSETNX", meta, "config", DrawPersistence.encode(.standard)])
        guard let hash = await command(["HGET", meta, "hostKeyHash"])?.string else {
            return .failure(ClusterStartError(description: "Redis at \(endpoint) stopped answering during start-up"))
        }
        _ = await command(["SADD", Self.drawsKey, code])
        let defaultCode = code
        _ = await client.onLoop { [self] (done: @escaping (Bool) -> Void) in
            add(code: defaultCode, hostKeyHash: hash)
            subscriber.subscribe(RedisDrawKeys.replies(instance: instanceID)) { [self] payload in
                guard let reply = try? ClusterReply.decode(payload) else { return }
                node(reply.draw)?.replied(reply)
            }
            subscriber.subscribe(Self.createdChannel) { [self] payload in
                learn(String(decoding: payload, as: UTF8.self))
            }
            subscribeShared()
            var connections = 0
            subscriber.onReady { [self] in
                // Also called when a channel is added; only a new connection may have missed messages.
                let reconnected = subscriber.readyCount != connections
                connections = subscriber.readyCount
                if reconnected { syncDraws() }
                for node in nodes.values { node.subscriptionsReady(reconnected: reconnected) }
            }
            subscriber.start()
            watchPrimary()
            done(true)
        }
        Log.event("cluster.start", fields: ["instance": .string(instanceID), "redis": .string("\(endpoint)"), "draw": .string(code)],
                  text: "tombola: cluster mode on \(endpoint) as instance \(instanceID)")
        return .success(DrawService.DefaultDraw(code: code, hostKey: shownKey, created: created, keyReset: keyReset))
    }

    func node(_ code: String) -> ClusterDrawNode? {
        table.withLock { $0[code] ?? $0[code.uppercased()] }
    }

    /// Serves draw `code` from now on (competing for its lease). Loop only.
    private func add(code: String, hostKeyHash: String) {
        let node: ClusterDrawNode? = table.withLock { nodes in
            guard nodes[code] == nil else { return nil }
            let node = ClusterDrawNode(code: code, hostKeyHash: hostKeyHash, runtime: self)
            nodes[code] = node
            return node
        }
        node?.checkinLimits.share(sharedLimits, draw: code)
        node?.start()
    }

    /// A draw another instance created (or one found in `tombola:draws`). Loop only.
    private func learn(_ code: String) {
        guard node(code) == nil, DrawKeys.isValidCode(code) else { return }
        client.send(["HGET", RedisDrawKeys(code: code).meta, "hostKeyHash"]) { [self] result in
            if case .success(let reply) = result, let hash = reply.string { add(code: code, hostKeyHash: hash) }
        }
    }

    /// Reads `tombola:draws` (at start and after each reconnect: announcements may have been missed). Loop only.
    private func syncDraws() {
        client.send(["SMEMBERS", Self.drawsKey]) { [self] result in
            guard case .success(let reply) = result, let members = reply.array else { return }
            for member in members { if let code = member.string { learn(code) } }
        }
    }

    /// `POST /api/draws` in cluster mode: a new draw with a fresh code and host key, stored in
    /// Redis and announced to the other instances. Any thread; completion on the loop.
    func createDraw(config: DrawConfig, completion: @escaping @Sendable (Result<(code: String, key: String), any Error>) -> Void) {
        loop.execute { [self] in attemptCreate(config: config, attempts: 5, completion: completion) }
    }

    private func attemptCreate(config: DrawConfig, attempts: Int,
                               completion: @escaping @Sendable (Result<(code: String, key: String), any Error>) -> Void) {
        let code = DrawKeys.newCode()
        let key = DrawKeys.newSecret()
        let hash = DrawKeys.hash(key)
        let meta = RedisDrawKeys(code: code).meta
        client.send(["HSETNX", meta, "hostKeyHash", hash]) { [self] result in
            switch result {
            case .failure(let error):
                completion(.failure(ClusterError.unavailable(error)))
            case .success(let reply) where reply.integer != 1:
                // The code is taken: another one.
                if attempts > 1 { attemptCreate(config: config, attempts: attempts - 1, completion: completion) } else {
                    completion(.failure(ClusterError.unexpectedReply("no free draw code")))
                }
            case .success:
                client.send(["HSET", meta, "config", DrawPersistence.encode(config)]) { _ in }
                client.send(["SADD", Self.drawsKey, code]) { _ in }
                client.send(["PUBLISH", Self.createdChannel, code]) { [self] published in
                    guard case .success = published else { return completion(.failure(ClusterError.unavailable(.closed))) }
                    add(code: code, hostKeyHash: hash)
                    completion(.success((code, key)))
                }
            }
        }
    }

    /// Gives up the leases (so another instance takes over at once), then closes Redis and the loop.
    func shutdown() {
        let done = DispatchSemaphore(value: 0)
        let all = Array(nodes.values)
        let remaining = Lock(all.count)
        if all.isEmpty { done.signal() }
        for node in all {
            node.shutdown {
                if remaining.withLock({ $0 -= 1; return $0 }) == 0 { done.signal() }
            }
        }
        _ = done.wait(timeout: .now() + .seconds(2))
        close()
    }

    /// Behind Sentinel: logs each new primary the client connects to, and why it could not
    /// (a demoted primary, or one without a durable AOF, is refused until the Sentinels name
    /// another). Loop only.
    private func watchPrimary() {
        guard locator != nil else { return }
        var last: RedisEndpoint?
        client.observeState { [self] state in
            switch state {
            case .ready:
                guard let primary = client.connectedTo else { return }
                if let previous = last, previous != primary {
                    Log.event("cluster.primary_changed", fields: ["primary": .string("\(primary.host):\(primary.port)")],
                              text: "tombola: cluster: Redis primary is now \(primary.host):\(primary.port)")
                }
                last = primary
            case .waiting:
                if let failure = client.lastFailure {
                    Log.event("cluster.redis_waiting", level: .error, fields: ["reason": .string(failure)],
                              text: "tombola: cluster: no usable Redis primary yet: \(failure)")
                }
            default:
                break
            }
        }
    }

    private func close() {
        locator?.close()
        subscriber.close()
        client.close()
        group.shutdown()
    }
}
