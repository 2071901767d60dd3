import DrawRoomCore
import ClusterCore
import RedisStore
import Crypto
import DrawEngine
import JSON
import Locking
import Posix
import Server

/// One draw on one instance in cluster mode (docs/CLUSTER.md): the thin shell on the cluster
/// loop around `ClusterNodeState`, which decides this instance's role for the draw (follower,
/// contender, owner, stepping down). The shell feeds it events with the time (the entry points
/// below, Redis answers, channel messages, timers) and performs the actions it returns: Redis
/// commands through `ClusterStore`, frames to this instance's pages (`group`), timers on `loop`,
/// answers to callers. As the owner it runs the draw's `DrawRoom` (the same room as single-box)
/// with `ClusterRecordStore` as its store; what the room announces goes through the state
/// machine (ClusterDrawNode+Announcing).
///
/// `@unchecked Sendable`: immutable properties plus state used only on `loop` (internal so the
/// extensions in ClusterDrawNode+Commands, +Announcing, +Log, +Checkin can reach it; nothing
/// else touches it).
final class ClusterDrawNode: DrawChannel, @unchecked Sendable {
    let code: String
    let group = BroadcastGroup()
    let loop: EventLoop
    let runtime: ClusterRuntime
    let keys: RedisDrawKeys
    let hostKey: HostKeyHash
    var store: ClusterStore { runtime.store }
    /// Whether this instance runs the draw's room now (read by /metrics on any thread).
    private let owning = Lock(false)
    private let exclusion = Lock<PastWinners?>(nil)
    var isOwner: Bool { owning.withLock { $0 } }
    func setOwner(_ value: Bool) { owning.withLock { $0 = value } }
    var settings: ClusterSettings { runtime.settings }

    /// What a request (`ClusterNodeState`'s `.submit`) runs on the owner's room.
    enum Request {
        case command(HostCommand, seq: Int64?, client: String?, awaitReveal: Bool,
                     completion: @Sendable (Result<CommandReply, CommandFailure>) -> Void)
        case checkin(local: (DrawRoom) -> Void, completion: @Sendable (Result<CommandReply, CommandFailure>) -> Void)

        var completion: @Sendable (Result<CommandReply, CommandFailure>) -> Void {
            switch self {
            case .command(_, _, _, _, let completion), .checkin(_, let completion): completion
            }
        }
    }

    // Loop-only state.
    var state: ClusterNodeState
    var handles: [UInt64: WebSocketSessionHandle] = [:]
    var room: DrawRoom?
    var timers: [ClusterNodeState.Timer: ScheduledTimer] = [:]
    var requests: [UInt64: Request] = [:]
    var nextRequest: UInt64 = 0
    var shutdownDone: (@Sendable () -> Void)?
    var random = SystemRandomNumberGenerator()
    /// The Redis client's `readyCount` last seen by `feed`: a new one is a reconnect.
    var redisConnection = 0
    // Owner: what it stored.
    var nextBatch: UInt64 = 0
    /// Owner: a Start just applied, whose answer is kept with the round's frozen inputs (one
    /// script, `keepRolling`) before the host gets it.
    var pendingStartAnswer: PendingAnswer?
    /// Owner: answers stored with their command's records ("client\tseq"), until the command's
    /// completion (which then has nothing more to write).
    var keptWithRecords: [String: CommandReply] = [:]
    /// Owner: the winners for other draws it last published (records, head).
    var publishedWinners: (records: Int, head: String)?
    /// Follower: the settings document last built from Redis (kept while the owner's snapshots
    /// name its hash).
    var settingsCache: SettingsDocument?
    /// Check-in (ClusterDrawNode+Checkin): per-instance attempt limits and the store.
    let checkinLimits = CheckinLimits()
    lazy var checkinStore = CheckinStore(client: store.client)

    struct PendingAnswer {
        let client: String
        let seq: Int64
        let reply: CommandReply
        let completion: @Sendable (Result<CommandReply, CommandFailure>) -> Void
    }

    init(code: String, hostKeyHash: String, runtime: ClusterRuntime) {
        self.code = code
        self.runtime = runtime
        self.loop = runtime.loop
        self.keys = RedisDrawKeys(code: code)
        self.hostKey = HostKeyHash(hostKeyHash)
        self.state = ClusterNodeState(settings: .init(code: code, instanceID: runtime.instanceID, cluster: runtime.settings))
    }

    func isHostKey(_ key: String) -> Bool { hostKey.matches(key) }

    /// Starts competing for the lease. Any thread.
    func start() {
        loop.execute { [self] in feed(.timerDue(.lease)) }
    }

    /// Stops acting: gives the lease up (so another instance need not wait for it to expire).
    func shutdown(_ done: @escaping @Sendable () -> Void) {
        loop.execute { [self] in
            shutdownDone = done
            feed(.shutdown)
        }
    }

    // MARK: Pages (DrawChannel)

    func join(_ handle: WebSocketSessionHandle, remote: String, device: String?) {
        loop.execute { [self] in
            handles[handle.id] = handle
            feed(.joined(handle.id, remote: remote, device: device))
        }
    }

    func leave(_ id: UInt64) {
        loop.execute { [self] in
            feed(.left(id))
            handles[id] = nil
        }
    }

    func received(_ text: String, from id: UInt64) {
        loop.execute { [self] in feed(.received(text, from: id)) }
    }

    func perform(_ command: HostCommand, seq: Int64?, client: String?, awaitReveal: Bool,
                 completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        loop.execute { [self] in submit(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion) }
    }

    func currentState(_ completion: @escaping @Sendable (String?) -> Void) {
        loop.execute { [self] in
            if let room { return completion(room.publicStateText) }
            if state.subscribed, let snapshot = state.snapshot { return completion(snapshot.text) }
            store.client.send(["GET", keys.snapshot]) { [self] result in
                if case .success(let reply) = result, let text = reply.string, let read = Self.parseSnapshot(text) {
                    feed(.snapshotFetched(read))
                }
                completion(state.snapshot?.text)
            }
        }
    }

    /// The owner serves the full settings from its room. A follower serves the same document
    /// from the settings in Redis (`{d:CODE}:meta` `config`, written with the records that
    /// change them): read and built (gzip included) once per configure, and kept while the
    /// owner's latest snapshot names the same settings hash.
    func settingsDocument(_ completion: @escaping @Sendable (SettingsDocument?) -> Void) {
        loop.execute { [self] in
            if let room { return room.settingsDocument(completion) }
            let current = announcedSettingsHash()
            if let cached = settingsCache, let current, cached.hash == current { return completion(cached) }
            store.client.send(["HGET", keys.meta, "config"]) { [self] result in
                guard case .success(let reply) = result, let text = reply.string else { return completion(nil) }
                let loop = self.loop
                // Building a large list's document (and its gzip) takes tens of milliseconds: not on the loop.
                let started = DetachedThread.start {
                    guard let config = DrawPersistence.decode(text) else { return completion(nil) }
                    let publicText = DrawPersistence.encodePublic(config)
                    let document = SettingsDocument(text: publicText, hash: SHA256.hexDigest(Array(publicText.utf8)))
                    loop.execute { [self] in settingsCache = document }
                    completion(document)
                }
                if !started { completion(nil) }
            }
        }
    }

    /// The settings hash in the owner's latest snapshot (its `config` summary).
    func announcedSettingsHash() -> String? {
        state.snapshotSummary.settingsHash
    }

    /// This draw's winners for other draws' `excludeWinnersOf`, from any thread: the owner's
    /// room's, or as the owner last published them (read before a linking draw's Start).
    var pastWinners: PastWinners? { exclusion.withLock { $0 } }
    func setPastWinners(_ winners: PastWinners) { exclusion.withLock { $0 = winners } }

    /// Every record, read from the round log (any instance can export).
    func export(_ completion: @escaping @Sendable (Result<[DrawRecord], any Error>) -> Void) {
        loop.execute { [self] in readChain { completion($0.map(\.records)) } }
    }

    // MARK: Subscriptions and the host key

    /// Every subscription is live (`reconnected`: on a new connection). Loop only.
    func subscriptionsReady(reconnected: Bool) {
        let live = runtime.subscriber.liveChannels
        feed(.subscriptions(fanoutLive: live.contains(keys.channel), commandsLive: live.contains(keys.commands), reconnected: reconnected))
    }

    /// Reads the draw's host key hash from Redis and takes it (a `tombola:host-keys` notice, or
    /// after the subscriber reconnected: `tombola host-link`, docs/CLUSTER.md, *Host link*). Loop only.
    func refreshHostKey() {
        store.client.send(["HGET", keys.meta, "hostKeyHash"]) { [self] result in
            guard case .success(let reply) = result, let hash = reply.string, !hash.isEmpty else { return }
            hostKeyChanged(to: hash)
        }
    }

    /// Takes `hash`: the old key is refused from now on, here and (owner) by the room; every
    /// page that authenticated with it becomes a viewer. Loop only.
    func hostKeyChanged(to hash: String) {
        guard hostKey.replace(with: hash) else { return }
        // The owner's room demotes its hosts itself (they are this node's members too).
        room?.hostKeyChanged(to: hash)
        feed(.hostKeyChanged)
        Log.event("cluster.host_key_reset", fields: ["draw": .string(code), "instance": .string(runtime.instanceID)],
                  text: "tombola: draw \(code) has a new host key (tombola host-link); the old one is refused")
    }

    // MARK: Helpers

    /// A snapshot as `{d:CODE}:snap` holds it (`ClusterSnapshot.stored(by:)`).
    static func parseSnapshot(_ text: String) -> ClusterSnapshot? {
        ClusterSnapshot.parse(text[...])?.0
    }
}
