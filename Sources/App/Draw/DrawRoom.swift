import DrawEngine
import JSON
import Posix
import Storage

/// Settings all rooms share.
struct DrawRoomSettings: Sendable {
    /// Rolling ticks per second.
    var tickHz = 20
    /// How long the Stop slow-down takes before it lands on the first winner.
    var slowDown = Duration.milliseconds(1500)
}

/// What a host command came to.
struct CommandReply: Sendable {
    /// `{"type":"ack","seq":n,"command":…}` plus command details (`duplicates`).
    var ack: JSONValue
    /// The `result` message for `stop` (after the reveal) and `void`.
    var result: JSONValue?
}

struct CommandFailure: Error, Sendable, Equatable {
    let code: String
}

/// One draw's live room: the `Draw` engine, its connected pages, ticks and the Stop
/// slow-down. All state lives on `loop` (the draw loop); pages on other loops reach it
/// through the methods below, which hop there. Broadcasts go through `group`, whose
/// members sit on their own loops.
///
/// A round's records are stored (one synced transaction) before anything derived from
/// them is sent; a storage failure is reported to the host and nothing is announced.
///
/// `@unchecked Sendable`: `code`, `loop`, `group`, `storage`, `limiter`, `settings` and
/// `hostKeyHash` are immutable; every other stored property is used only on `loop`.
final class DrawRoom: @unchecked Sendable {
    struct Member {
        let handle: WebSocketSessionHandle
        let remote: String
        var isHost = false
        var entropy: Contribution?
        var client: String?
    }

    let code: String
    let loop: EventLoop
    let group = BroadcastGroup()
    let hostKeyHash: String
    let storage: StorageQueue
    let limiter: AuthRateLimiter
    let settings: DrawRoomSettings
    let audit: DrawAuditLog
    let metrics: DrawMetrics

    var draw: Draw
    var members: [UInt64: Member] = [:]
    /// Members whose entropy went into the current/last round; nil before any round here.
    var frozenMembers: Set<UInt64>?
    var tickSeq: Int64 = 0
    var lastTick: JSONValue?
    var tickTimer: ScheduledTimer?
    var queue: [Job] = []
    var busy = false
    var applied: [String: SeqLog] = [:]
    var configText: String
    var announcedViewers = 0
    var viewerTimer: ScheduledTimer?
    var revealWaiters: [@Sendable (Result<CommandReply, CommandFailure>) -> Void] = []
    var pendingAck: JSONValue?
    var display = SystemRandomNumberGenerator()

    struct Job {
        let command: HostCommand
        let seq: Int64?
        let client: String?
        let awaitReveal: Bool
        let completion: @Sendable (Result<CommandReply, CommandFailure>) -> Void
    }

    /// The acks of recently applied sequence numbers of one client (bounded).
    struct SeqLog {
        var acks: [Int64: CommandReply] = [:]
        var order: [Int64] = []

        mutating func insert(_ seq: Int64, _ reply: CommandReply) {
            acks[seq] = reply
            order.append(seq)
            if order.count > 512 { acks[order.removeFirst()] = nil }
        }
    }

    /// `draw` must already have a stored pending commitment.
    init(code: String, draw: Draw, hostKeyHash: String, loop: EventLoop, storage: StorageQueue,
         limiter: AuthRateLimiter, settings: DrawRoomSettings, audit: DrawAuditLog, metrics: DrawMetrics) {
        self.code = code
        self.audit = audit
        self.metrics = metrics
        self.draw = draw
        self.hostKeyHash = hostKeyHash
        self.loop = loop
        self.storage = storage
        self.limiter = limiter
        self.settings = settings
        self.configText = DrawPersistence.encode(draw.config)
    }

    /// Whether `key` is this draw's host key (constant-time on the digests). From any thread.
    func isHostKey(_ key: String) -> Bool {
        DrawKeys.matches(key, storedHash: hostKeyHash)
    }

    // MARK: Pages (from any thread)

    /// A page connected: it gets a `state` snapshot. `handle`'s session must already be in `group`.
    func join(_ handle: WebSocketSessionHandle, remote: String) {
        loop.execute { [self] in
            members[handle.id] = Member(handle: handle, remote: remote)
            handle.send(text: stateText(for: handle.id))
            scheduleViewerAnnouncement()
        }
    }

    func leave(_ id: UInt64) {
        loop.execute { [self] in
            members[id] = nil
            scheduleViewerAnnouncement()
        }
    }

    func received(_ text: String, from id: UInt64) {
        loop.execute { [self] in handle(text, from: id) }
    }

    /// Runs a host command (already authenticated) and reports when it is applied, or for
    /// `stop` with `awaitReveal` once the winners are revealed.
    func perform(_ command: HostCommand, seq: Int64?, client: String?, awaitReveal: Bool = false,
                 completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        loop.execute { [self] in
            queue.append(Job(command: command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion))
            pump()
        }
    }

    /// The public `state` (role viewer) for REST, as JSON text.
    func publicState(_ completion: @escaping @Sendable (String) -> Void) {
        loop.execute { [self] in completion(stateText(for: nil)) }
    }

    /// Every record, for exports: read from storage (the archive), not from memory.
    func export(_ completion: @escaping @Sendable (Result<[DrawRecord], any Error>) -> Void) {
        let code = self.code
        storage.async({ database in
            try database.loadRecords(drawCode: code).map { row in
                do { return try DrawRecord(text: row.json) } catch let error as RecordError {
                    throw StorageError(.corrupt, detail: error.reason)
                }
            }
        }, completion: completion)
    }

    /// Stops the timers (server shutdown).
    func shutdown() {
        loop.execute { [self] in
            tickTimer?.cancel()
            tickTimer = nil
            viewerTimer?.cancel()
            viewerTimer = nil
        }
    }

    // MARK: Messages (on the loop)

    private func handle(_ text: String, from id: UInt64) {
        guard var member = members[id] else { return }
        let message: ClientMessage
        do {
            message = try DrawMessageParser.parse(text)
        } catch {
            send(error: error.code, to: member.handle)
            return
        }
        switch message {
        case .hello(let entropy, let client):
            if let entropy { member.entropy = entropy }
            if let client { member.client = client }
            members[id] = member
        case .sync:
            member.handle.send(text: stateText(for: id))
        case .auth(let key, let client):
            if let client { member.client = client }
            guard limiter.allows(member.remote) else {
                members[id] = member
                send(error: "rate_limited", to: member.handle)
                return
            }
            if isHostKey(key) {
                member.isHost = true
                members[id] = member
                member.handle.send(text: JSONValue.object(["type": .string("role"), "role": .string("host")]).canonicalString)
            } else {
                limiter.recordFailure(member.remote)
                metrics.authFailures.increment()
                members[id] = member
                send(error: "bad_key", to: member.handle)
            }
        case .command(let command, let seq):
            guard member.isHost else {
                send(error: "not_host", to: member.handle)
                return
            }
            let handle = member.handle
            queue.append(Job(command: command, seq: seq, client: member.client, awaitReveal: false) { outcome in
                switch outcome {
                case .success(let reply): handle.send(text: reply.ack.canonicalString)
                case .failure(let failure): handle.send(text: Self.errorText(failure.code, seq: seq))
                }
            })
            pump()
        }
    }

    func send(error code: String, to handle: WebSocketSessionHandle) {
        handle.send(text: Self.errorText(code, seq: nil))
    }

    static func errorText(_ code: String, seq: Int64?) -> String {
        var members: [String: JSONValue] = ["type": .string("error"), "code": .string(code),
                                            "message": .string(DrawErrorText.message(for: code))]
        if let seq { members["seq"] = .int(seq) }
        return JSONValue.object(members).canonicalString
    }

    func broadcast(_ message: JSONValue, stream: OutboundStream = .reliable) {
        group.broadcast(text: message.canonicalString, stream: stream)
    }

    static func phaseMessage(_ phase: DrawPhase) -> JSONValue {
        .object(["type": .string("phase"), "phase": .string(phase.rawValue)])
    }

    // MARK: Viewer count

    /// At most one `viewers` message a second, and only when the count changed.
    private func scheduleViewerAnnouncement() {
        guard viewerTimer == nil else { return }
        viewerTimer = loop.scheduleTimer(after: .seconds(1)) { [weak self] in
            guard let self else { return }
            viewerTimer = nil
            guard members.count != announcedViewers else { return }
            announcedViewers = members.count
            broadcast(.object(["type": .string("viewers"), "count": .int(Int64(members.count))]), stream: .latestValue)
            scheduleViewerAnnouncement()
        }
    }

    // MARK: State

    /// The `config` message after `configure`: the settings and the counts that follow from them.
    func configMessageText() -> String {
        let message: JSONValue = .object([
            "type": .string("config"),
            "remaining": .int(Int64(clamping: draw.remaining)),
            "exhausted": .bool(draw.isExhausted),
            "currentPrize": draw.currentPrize.map { .int(Int64($0)) } ?? .null,
            "prizesDone": .bool(draw.prizesDone),
            "round": .int(Int64(draw.nextRound)),
        ])
        var text = message.canonicalString
        text.removeFirst()
        return "{\"config\":" + configText + "," + text
    }

    /// The `state` snapshot for member `id` (nil: the public REST view).
    func stateText(for id: UInt64?) -> String {
        let member = id.flatMap { members[$0] }
        var contributed: JSONValue = .null
        if let id, let frozenMembers { contributed = .bool(frozenMembers.contains(id)) }
        let draw = self.draw
        let commit: JSONValue = draw.commit.map {
            .object(["round": .int(Int64($0.round)), "commitment": .string($0.commitment), "poolHash": .string($0.poolHash)])
        } ?? .null
        let state: JSONValue = .object([
            "type": .string("state"),
            "code": .string(code),
            "role": .string(member?.isHost == true ? "host" : "viewer"),
            "phase": .string(draw.phase.rawValue),
            "remaining": .int(Int64(clamping: draw.remaining)),
            "exhausted": .bool(draw.isExhausted),
            "currentPrize": draw.currentPrize.map { .int(Int64($0)) } ?? .null,
            "prizesDone": .bool(draw.prizesDone),
            "round": .int(Int64(draw.nextRound)),
            "commit": commit,
            // While the slow-down runs, the new round is stored but not yet announced.
            "rounds": .array((draw.phase == .stopping ? Array(draw.board.dropLast()) : draw.board).map(\.json)),
            "result": draw.phase == .stopping ? .null : (draw.lastResult?.resultMessage() ?? .null),
            "viewers": .int(Int64(members.count)),
            "tick": lastTick ?? .null,
            "algorithm": .string(Fairness.algorithm),
            "contributed": contributed,
        ])
        // The settings are spliced in as text: a list of 100,000 names is encoded once, not per join.
        var text = state.canonicalString
        text.removeFirst()
        return "{\"config\":" + configText + "," + text
    }
}
