import Cluster
import Crypto
import Dispatch
import DrawEngine
import JSON
import Locking
import Posix
import Server

/// One draw on one instance in cluster mode (docs/CLUSTER.md). It serves the draw's pages
/// here and is, at any moment, either
///
/// - the **owner**: it holds the draw's lease and runs the draw's `DrawRoom` (the same state
///   machine as single-box) with `ClusterRecordStore` as its store; what the room broadcasts
///   goes to the pages here and is published on the draw's channel; or
/// - a **follower**: it forwards what the owner publishes to its pages, answers joins with
///   the owner's latest snapshot, and forwards host commands to the owner.
///
/// Everything runs on the cluster loop (the room's loop and the Redis client's); the
/// `DrawChannel` entry points hop there.
///
/// `@unchecked Sendable`: immutable properties plus state used only on `loop` (internal so the
/// extensions in ClusterDrawNode+Commands, +Ownership, +Following can reach it; nothing else
/// touches it).
final class ClusterDrawNode: DrawChannel, @unchecked Sendable {
    let code: String
    let group = BroadcastGroup()
    let loop: EventLoop
    let runtime: ClusterRuntime
    let keys: Cluster.DrawKeys
    let hostKey: HostKeyHash
    var store: ClusterStore { runtime.store }
    /// Whether this instance runs the draw's room now (read by /metrics on any thread).
    private let owning = Lock(false)
    private let exclusion = Lock<PastWinners?>(nil)
    var isOwner: Bool { owning.withLock { $0 } }
    func setOwner(_ value: Bool) { owning.withLock { $0 = value } }
    var settings: ClusterSettings { runtime.settings }

    struct Member {
        let handle: WebSocketSessionHandle
        let remote: String
        var isHost = false
        var client: String?
        var entropy: Contribution?
        /// The hash of the page's check-in device cookie, if any.
        var device: String? = nil
    }

    struct Forwarded {
        let completion: @Sendable (Result<CommandReply, CommandFailure>) -> Void
        let timer: ScheduledTimer
        /// The newest owner's token known when it was (last) sent.
        var token: Int64
        /// Whether an owner heard it (a PUBLISH nobody hears is sent again; `publishForwarded`).
        var delivered = false
    }

    // Loop-only state.
    var members: [UInt64: Member] = [:]
    var room: DrawRoom?
    var lease: OwnerLease?
    var leaseBusy = false
    var halted = false
    var stopped = false
    var timer: ScheduledTimer?
    var lastCountReport: UInt64 = 0
    // Owner: what it published and stored.
    var publishedSeq: Int64 = 0
    var reliableSinceSettle = false
    var logEpoch = ""
    var logOffset = ""
    var nextBatch: UInt64 = 0
    var remoteCounts: [String: (count: Int, at: UInt64)] = [:]
    // Follower: the owner's view.
    var subscribed = false
    /// The snapshot read a new subscription waits for (its channel must be live first), and
    /// whether it goes to every page (`true`) or only to those waiting.
    var snapshotReadPending: Bool?
    /// Pages may have missed a message published before the channel was live (and after the
    /// snapshot they got): the next snapshot the channel brings goes to every page.
    var pagesMayLag = false
    var snapshot: ClusterSnapshot?
    var highestToken: Int64 = 0
    var lastTick: String?
    var lastViewers: String?
    var waitingForSnapshot: [UInt64] = []
    var cursor = ChainCursor()
    var catchingUp = false
    var forwarded: [UInt64: Forwarded] = [:]
    var nextForward: UInt64 = 0
    /// A new owner announces itself (`R`) once it hears its command channel.
    var announcePending = false
    /// Commands that arrived between taking the lease and opening the room.
    var waitingForRoom: [() -> Void] = []
    /// Owner: a Start just applied, whose answer is kept with the round's frozen inputs (one
    /// script, `keepRolling`) before the host gets it.
    var pendingStartAnswer: PendingAnswer?
    /// Owner: answers stored with their command's records ("client\tseq"), until the command's
    /// completion (which then has nothing more to write).
    var keptWithRecords: [String: CommandReply] = [:]
    /// Owner: the winners for other draws it last published (records, head).
    var publishedWinners: (records: Int, head: String)?
    /// Follower: the settings document last built from Redis, and the settings hash of the
    /// snapshot it was checked against.
    var settingsCache: SettingsDocument?
    var snapshotSettingsHash: (token: Int64, seq: Int64, hash: String?)?
    /// Check-in (ClusterDrawNode+Checkin): per-instance attempt limits, the store, and the book
    /// read at a takeover until the room opens.
    let checkinLimits = CheckinLimits()
    lazy var checkinStore = CheckinStore(client: store.client)
    var checkinBook: CheckinBook?
    /// Follower: pages waiting for their own `state.checkin` from the owner (asked together).
    var checkinPagesPending: [UInt64] = []

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
        self.keys = Cluster.DrawKeys(code: code)
        self.hostKey = HostKeyHash(hostKeyHash)
    }

    func isHostKey(_ key: String) -> Bool { hostKey.matches(key) }

    /// Starts competing for the lease. Any thread.
    func start() {
        loop.execute { [self] in tick() }
    }

    /// Stops acting: gives the lease up (so another instance need not wait for it to expire).
    func shutdown(_ done: @escaping @Sendable () -> Void) {
        loop.execute { [self] in
            stopped = true
            timer?.cancel()
            guard let lease else { return done() }
            stepDown("shutting down", announce: false)
            store.releaseLease(lease) { _ in done() }
        }
    }

    // MARK: Pages (DrawChannel)

    func join(_ handle: WebSocketSessionHandle, remote: String, device: String?) {
        loop.execute { [self] in
            members[handle.id] = Member(handle: handle, remote: remote, device: device)
            if let room {
                room.join(handle, remote: remote, device: device)
            } else {
                subscribeIfNeeded()
                sendSnapshot(to: handle.id)
                if let device { forwardDevice(device, of: handle.id) }
            }
        }
    }

    func leave(_ id: UInt64) {
        loop.execute { [self] in
            if room == nil, members[id]?.entropy != nil { forwardEntropy(nil, of: id) }
            if room == nil, members[id]?.device != nil { forwardDevice(nil, of: id) }
            members[id] = nil
            room?.leave(id)
            if members.isEmpty && room == nil { unsubscribe() }
        }
    }

    func received(_ text: String, from id: UInt64) {
        loop.execute { [self] in
            guard let member = members[id] else { return }
            let message: ClientMessage
            do {
                message = try DrawMessageParser.parse(text)
            } catch let error as MessageError {
                member.handle.send(text: DrawRoomState.errorText(error.code, seq: nil))
                return
            } catch {
                return
            }
            switch message {
            case .hello(let entropy, let client):
                if let client { members[id]?.client = client }
                if let entropy { members[id]?.entropy = entropy }
                if let room {
                    room.received(text, from: id)
                } else if let entropy {
                    forwardEntropy(entropy, of: id)
                }
            case .sync:
                if let room { room.received(text, from: id) } else { sendSnapshot(to: id) }
            case .auth(let key, let client):
                if let client { members[id]?.client = client }
                let verdict: DrawRoomState.KeyVerdict
                if !runtime.limiter.allows(member.remote) {
                    verdict = .rateLimited
                } else if hostKey.matches(key) {
                    verdict = .accepted
                    members[id]?.isHost = true
                } else {
                    runtime.limiter.recordFailure(member.remote)
                    verdict = .refused
                }
                if let room {
                    room.keyChecked(id, verdict)
                } else {
                    switch verdict {
                    case .accepted:
                        member.handle.send(text: Self.roleHost)
                        sendOwnCheckin(to: id)  // a host's `checkin.names` (ClusterDrawNode+Checkin)
                    case .refused:
                        runtime.metrics.authFailures.increment()
                        member.handle.send(text: DrawRoomState.errorText("bad_key", seq: nil))
                    case .rateLimited: member.handle.send(text: DrawRoomState.errorText("rate_limited", seq: nil))
                    }
                }
            case .command(let command, let seq):
                guard members[id]?.isHost == true else {
                    member.handle.send(text: DrawRoomState.errorText("not_host", seq: nil))
                    return
                }
                let handle = member.handle
                submit(command, seq: seq, client: members[id]?.client, awaitReveal: false) { outcome in
                    switch outcome {
                    case .success(let reply): handle.send(text: reply.ack.canonicalString)
                    case .failure(let failure): handle.send(text: DrawRoomState.errorText(failure.code, seq: seq))
                    }
                }
            }
        }
    }

    func perform(_ command: HostCommand, seq: Int64?, client: String?, awaitReveal: Bool,
                 completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        loop.execute { [self] in submit(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion) }
    }

    func currentState(_ completion: @escaping @Sendable (String?) -> Void) {
        loop.execute { [self] in
            if let room { return completion(room.publicStateText) }
            if subscribed, let snapshot { return completion(snapshot.text) }
            store.client.send(["GET", keys.snapshot]) { [self] result in
                if case .success(let reply) = result, let text = reply.string, let read = Self.parseSnapshot(text) {
                    accept(read)
                }
                completion(snapshot?.text)
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
                DispatchQueue.global().async {
                    guard let config = DrawPersistence.decode(text) else { return completion(nil) }
                    let publicText = DrawPersistence.encodePublic(config)
                    let document = SettingsDocument(text: publicText, hash: SHA256.hexDigest(Array(publicText.utf8)))
                    loop.execute { [self] in settingsCache = document }
                    completion(document)
                }
            }
        }
    }

    /// The settings hash in the owner's latest snapshot (its `config` summary), parsed once per snapshot.
    func announcedSettingsHash() -> String? {
        guard let snapshot else { return nil }
        if let known = snapshotSettingsHash, known.token == snapshot.token, known.seq == snapshot.seq { return known.hash }
        let hash = (try? JSONValue.parse(snapshot.text))?["config"]?["hash"]?.stringValue
        snapshotSettingsHash = (snapshot.token, snapshot.seq, hash)
        return hash
    }

    /// This draw's winners for other draws' `excludeWinnersOf`, from any thread: the owner's
    /// room's, or as the owner last published them (read before a linking draw's Start).
    var pastWinners: PastWinners? { exclusion.withLock { $0 } }
    func setPastWinners(_ winners: PastWinners) { exclusion.withLock { $0 = winners } }

    /// Every record, read from the round log (any instance can export).
    func export(_ completion: @escaping @Sendable (Result<[DrawRecord], any Error>) -> Void) {
        loop.execute { [self] in readChain { completion($0.map(\.records)) } }
    }

    // MARK: Helpers

    static let roleHost = JSONValue.object(["type": .string("role"), "role": .string("host")]).canonicalString

    /// A snapshot as `{d:CODE}:snap` holds it (`ClusterSnapshot.stored(by:)`).
    static func parseSnapshot(_ text: String) -> ClusterSnapshot? {
        ClusterSnapshot.parse(text[...])?.0
    }

    /// A host command as the JSON `DrawMessageParser.command` reads back.
    static func encode(_ command: HostCommand) -> JSONValue {
        var members: [String: JSONValue] = ["type": .string(command.name)]
        switch command {
        case .start(let audience):
            members["audience"] = audience.map { .string($0) } ?? .null
        case .stop, .clear, .passUnclaimed:
            break
        case .configure(let config):
            members["config"] = config.json
        case .checkin(let command):
            // Read back by `inbound` (REST only; ClusterDrawNode+Checkin).
            members["type"] = .string("checkin")
            members["checkin"] = command.json
        case .replacePool(let pool):
            // Read back by `inbound` (not a WebSocket command: `PUT …/pool` only).
            members["type"] = .string("replacePool")
            members["config"] = .object(["pool": DrawConfig(pool: pool).json["pool"] ?? .null])
        case .void(let round, let winner, let reason, let audience):
            members["round"] = .int(Int64(round))
            members["winner"] = winner.json
            members["reason"] = .string(reason)
            members["audience"] = audience.map { .string($0) } ?? .null
        }
        return .object(members)
    }
}
