import JSON
import Crypto
import DrawEngine

/// One draw room's behaviour as a state machine: it takes events (a page joined or left, a
/// page's message, a host command, a timer due, a write stored or failed) with the time
/// passed in, and returns actions (send to one page, broadcast, store records, schedule a
/// timer, reply to a command). It does no I/O and reads no clock: `DrawRoom` is the thin
/// shell on the draw loop that performs the actions, and tests drive it with a manual clock.
///
/// A round's records are stored (the `.store` action, answered by `.stored`) before anything
/// derived from them is announced; a failed write is reported to the host, nothing is
/// announced, and the room checks that memory still matches the store (`.resynchronize`).
public struct DrawRoomState {
    /// The moment an event happens: the monotonic instant (timers) and the wall clock
    /// (record times, the `at` of ticks).
    public struct Time {
        public var instant: ContinuousClock.Instant
        public var wallMilliseconds: Double

        public init(instant: ContinuousClock.Instant, wallMilliseconds: Double) {
            self.instant = instant
            self.wallMilliseconds = wallMilliseconds
        }

        public var unixMilliseconds: Int64 { Int64(wallMilliseconds) }
    }

    public enum Timer: Hashable, Sendable {
        /// Rolling ticks, then the Stop slow-down (one at a time).
        case motion
        /// The throttled `viewers` announcement.
        case viewers
        /// The throttled `entrants` announcement (check-in).
        case entrants
        /// The next claim window's end (DrawRoomState+Claim.swift).
        case claims
    }

    /// Who hears a command's outcome: a page (ack or error frame) or a caller of `DrawRoom.perform`.
    public enum ReplyTarget: Equatable, Sendable {
        case member(UInt64)
        case caller(UInt64)
        /// The room's own job (passing an unclaimed win, finishing or voiding a beacon-sealed
        /// round): nobody waits for an answer.
        case server
    }

    /// What the shell found when it checked an `auth` key (rate limit first, then the digest).
    public enum KeyVerdict: Sendable {
        case accepted, refused, rateLimited
    }

    public enum Event {
        case joined(UInt64, remote: String)
        case left(UInt64)
        case received(String, from: UInt64)
        /// A page's `hello`, already read: a new cluster owner takes up a page that said it to
        /// this instance as a follower (`ClusterNodeState.open`).
        case hello(UInt64, entropy: Contribution?, client: String?)
        case keyChecked(UInt64, KeyVerdict)
        case command(HostCommand, seq: Int64?, client: String?, awaitReveal: Bool, caller: UInt64)
        case timerDue(Timer)
        case stored(Result<Void, StoreFailure>)
        /// After `.resynchronize`: the draw rebuilt from the store, or nil when memory matched it.
        case resynchronized(Draw?)
        /// The stored host key changed (`tombola host-link`): hosts authenticated with the old one become viewers.
        case hostKeyChanged
        /// Cluster mode: the pages other instances serve (their counts summed); announced with ours.
        case remoteViewers(Int)
        /// Cluster mode: a page on another instance (`key`) sent entropy, or left (nil).
        case remoteEntropy(String, Contribution?)
        /// Cluster mode: a new owner restored a round that was rolling: tick again.
        case resumeRolling
        /// Cluster mode: a new owner restored a Stop its owner never revealed (`Draw.resumeStopping`),
        /// `elapsed` after it ran: the rest of the slow-down, then the reveal.
        case resumeStopping(elapsed: Duration)
        /// Cluster mode: ticks carry seqs above `after`, the highest any owner of the draw announced.
        case continueTicks(after: Int64)
        case shutdown
        /// A phone's check-in (REST), answered with `.reply(caller:)`.
        case checkinJoin(CheckinJoin, caller: UInt64)
        /// After `.storeEntrants`.
        case entrantsStored(Result<Void, StoreFailure>)
        /// The page `id` carries the device cookie whose hash is `device`.
        case deviceLinked(UInt64, device: String)
        /// A phone claims its win (REST, its device cookie hashed), answered with `.reply(caller:)`.
        case claim(device: String, caller: UInt64)
        /// What fetching a sealed round's drand round gave (`Action.fetchBeacon`).
        case beaconFetched(BeaconRequest, BeaconFetch)
        /// A draw read back waiting for its drand round (single box): roll again and fetch it.
        case resumeSealed
    }

    public enum Action {
        /// A message for one page (`DrawWire.text` encodes it).
        case send(DrawPageMessage, to: UInt64)
        /// The `state` snapshot for one page; `shared` ones are the same text for many pages (the
        /// shell may encode and compress one frame per `StateSnapshot.Key`).
        case sendState(StateSnapshot, to: UInt64)
        /// To every page (`DrawWire.text` encodes it; a `tick` carries its `seq`, of which a
        /// cluster keeps the highest announced).
        case announce(DrawAnnouncement)
        /// Check `key` for `member` and answer with `.keyChecked`.
        case checkKey(String, remote: String, member: UInt64)
        case reply(caller: UInt64, Result<CommandReply, CommandFailure>)
        /// Store in one synced transaction and answer with `.stored`; nothing else is stored meanwhile.
        case store(RecordBatch)
        /// Store check-ins (one transaction) and answer with `.entrantsStored`.
        case storeEntrants(RecordBatch)
        /// Append to the audit log without holding the queue (a failure is only logged).
        case audit(AuditEntry)
        /// Compare the store with `expectedRecords` and answer with `.resynchronized`.
        case resynchronize(expectedRecords: Int)
        case schedule(Timer, at: ContinuousClock.Instant)
        case cancel(Timer)
        case count(DrawMetric)
        case logError(String)
        /// Fetch a drand round off the loop (at its due time, until the deadline), then `.beaconFetched`.
        case fetchBeacon(BeaconRequest)
    }

    /// What a broadcast is, for those who relay it (cluster mode): a follower keeps the latest
    /// viewer count, forgets the latest tick on `cleared`, relays check-in winners' presence, and
    /// the owner keeps a rolling round's frozen inputs when it announces `rolling`.
    public enum BroadcastKind: Sendable, Equatable {
        case other
        case viewers
        case cleared
        case phase(DrawPhase)
        case checkinWinners
    }

    /// Why a write did not happen: the protocol's code and the detail for the log.
    public struct StoreFailure: Error, Sendable {
        public var code: String
        public var detail: String

        public init(code: String, detail: String) {
            self.code = code
            self.detail = detail
        }
    }

    public struct Member {
        public let remote: String
        public var isHost = false
        public var entropy: Contribution?
        public var client: String?
        /// Cluster mode (`ClusterNodeState`): the hash of the page's check-in device cookie.
        public var device: String? = nil

        public init(remote: String, isHost: Bool = false, entropy: Contribution? = nil, client: String? = nil, device: String? = nil) {
            self.remote = remote
            self.isHost = isHost
            self.entropy = entropy
            self.client = client
            self.device = device
        }
    }

    public struct Job {
        public let command: HostCommand
        public let seq: Int64?
        public let client: String?
        public let awaitReveal: Bool
        public let target: ReplyTarget
    }

    /// The acks of recently applied sequence numbers of one client (bounded).
    public struct SeqLog {
        public var acks: [Int64: CommandReply] = [:]
        public var order: [Int64] = []

        public mutating func insert(_ seq: Int64, _ reply: CommandReply) {
            acks[seq] = reply
            order.append(seq)
            if order.count > 512 { acks[order.removeFirst()] = nil }
        }
    }

    /// A write in flight and what follows once it is stored.
    struct PendingWrite {
        public enum Continuation {
            /// The round's lock (`lock`, the batch's last record) is stored: roll. `lockedBefore`: the
            /// pool hash published before Start (other draws' winners locked in at Start may change it).
            case start(contributors: Set<UInt64>, lockedBefore: String?, lock: DrawRecord?)
            /// `ranAt`: when the stop drew its winners; the slow-down is counted from then.
            case stop(ranAt: ContinuousClock.Instant)
            case clear
            case configure(text: String, duplicates: [String])
            /// `voided`: the `void` message, so every page learns the reason.
            case void(contributors: Set<UInt64>, voided: JSONValue?, reason: String)
            case checkin(CheckinChange, configText: String?)
            /// Unclaimed wins passed on: (winner, alternate) each.
            case pass([(String, String?)])
            /// A beacon-sealed Stop stored its lock: the round keeps rolling until drand round R.
            case seal
            /// R's value and the round drawn from it are stored: slow down and reveal.
            case sealFinished(ranAt: ContinuousClock.Instant, beaconRound: UInt64)
            /// No valid value in time: the void is stored; the round keeps rolling.
            case sealVoid(BeaconVoidShown)
        }

        public let job: Job
        public let candidate: Draw
        public let then: Continuation
    }

    private enum Motion {
        case rolling(due: ContinuousClock.Instant)
        /// The slow-down's delays still to wait after the one scheduled now; the last tick shows `first`.
        /// `steps` ticks in all (the last one `first`); `step` of them sent so far.
        case slowing(remaining: ArraySlice<Duration>, first: DrawValue, step: Int, steps: Int)
    }

    public let code: String
    public let settings: DrawRoomSettings
    /// The other draws `excludeWinnersOf` may name (set by the shell).
    public var links = PastDrawLinks()
    public private(set) var draw: Draw
    public private(set) var members: [UInt64: Member] = [:]
    /// Members whose entropy went into the current/last round; nil before any round here.
    private var frozenMembers: Set<UInt64>?
    private var tickSeq: Int64 = 0
    private var lastTick: DrawTick?
    /// The round the previous run left rolling (no winner drawn), announced in `state` until the next Start.
    public var interrupted: Int?
    private var motion: Motion?
    private var queue: [Job] = []
    private var pending: PendingWrite?
    private var resynchronizing = false
    private var applied: [String: SeqLog] = [:]
    /// The full settings (canonical JSON), as stored and as `GET /api/draws/<code>/config` serves them.
    public private(set) var configText: String
    /// SHA-256 hex of `configText`: the `hash` of the settings summary and the download's ETag.
    public private(set) var configHash: String
    /// The settings as `state` and `config` carry them (`DrawConfig.summaryJSON`).
    private var summaryText: String
    /// The `state` snapshot per variant (role, contributed), built once and shared by every join
    /// until something it shows changes; `viewers` is the count when it was built (the throttled
    /// `viewers` announcement rebuilds it at most once a second).
    private var snapshots: [SnapshotVariant: String] = [:] {
        didSet { if snapshots.isEmpty { snapshotGeneration &+= 1 } }
    }
    /// Counts the times `snapshots` was emptied, so a shell's cache of encoded frames knows when to drop them.
    private var snapshotGeneration = 0
    private var announcedViewers = 0
    private var viewerTimerArmed = false
    private var revealWaiters: [Job] = []
    private var remoteViewers = 0
    private var remoteEntropy: [String: Contribution] = [:]
    /// The pages counted in `viewers`: this room's members and those of other instances.
    private var viewerCount: Int { members.count + remoteViewers }
    /// Check-in (#14): the entrant book and the joins in flight, a sub-machine of its own
    /// (CheckinState.swift; the room's side of it: DrawRoomState+Checkin.swift).
    public var checkin = CheckinState()
    /// Claims (#26): the latest claim round's windows (DrawRoomState+Claim.swift).
    public var claims = ClaimBook()
    /// The latest event's time (for `state.claims`' time left).
    public private(set) var now: Time?
    /// The latest beacon void of the round rolling now (shown until the next Stop or Start).
    var beaconVoid: BeaconVoidShown?
    /// A drand value (or failure) that came while a write was in flight; handled by `pump`.
    private var beaconArrived: (BeaconRequest, BeaconFetch)?
    /// The latest round sealed here by drand (round, drand round), for pages' "sealed by drand round R".
    var lastSealed: (round: Int, beaconRound: UInt64)?

    /// The `state` snapshot of one page, as text. `key` is set when the text is shared by every
    /// page of its variant until something it shows changes (a new `generation`).
    public struct StateSnapshot: Sendable {
        public struct Key: Hashable, Sendable {
            public var variant: SnapshotVariant
            public var generation: Int
        }

        public var text: String
        public var key: Key?
    }

    /// `draw` must already have a stored pending commitment.
    public init(code: String, draw: Draw, settings: DrawRoomSettings) {
        self.code = code
        self.draw = draw
        self.settings = settings
        self.configText = ""
        self.configHash = ""
        self.summaryText = ""
        adoptConfig(draw.config.publicText)
    }

    /// What differs between members' snapshots.
    public struct SnapshotVariant: Hashable, Sendable {
        public var host: Bool
        /// nil before any round here; else whether the member's entropy is in the frozen set.
        public var contributed: Bool?
        /// Check-in: the hash of the member's device when it has an entry here (its `me`);
        /// nil shares the frame with every page without one.
        public var device: String?

        public init(host: Bool, contributed: Bool? = nil, device: String? = nil) {
            self.host = host
            self.contributed = contributed
            self.device = device
        }
    }

    private mutating func adoptConfig(_ text: String) {
        configText = text
        configHash = SHA256.hexDigest(Array(text.utf8))
        summaryText = draw.config.summaryJSON(entrantsHash: draw.entrantsHash, entrantCount: draw.entrantCount,
                                              hash: configHash).canonicalString
        snapshots = [:]
    }

    /// Archived by the admin (`POST /api/draws/<code>/archive`): read-only, every command is
    /// `draw_archived`. The snapshot says so (`"archived":true`), so a page knows as it opens.
    public var archived = false {
        didSet { if archived != oldValue { snapshots = [:] } }
    }
    /// Witness reports relayed to the host pages (WitnessRelay.swift).
    var witnesses = WitnessLedger()

    /// Whether nothing is moving: no roll or slow-down, no write, no queued command (archiving waits for this).
    public var isSettled: Bool { !isBusy && queue.isEmpty && motion == nil && draw.phase != .rolling && draw.phase != .stopping }

    /// Whether a write (or the check after a failed one) is in flight; commands wait meanwhile.
    public var isBusy: Bool { pending != nil || resynchronizing || checkin.writing }

    // MARK: Events

    public mutating func handle(_ event: Event, at time: Time, using random: inout some RandomNumberGenerator) -> [Action] {
        process(event, at: time, using: &random)
    }

    /// `handle` with the system generator, the shells' own: specialized here, since a generic
    /// call from another module runs the unspecialized code (enum and metadata calls per event).
    public mutating func handle(_ event: Event, at time: Time, using random: inout SystemRandomNumberGenerator) -> [Action] {
        process(event, at: time, using: &random)
    }

    mutating func process(_ event: Event, at time: Time, using random: inout some RandomNumberGenerator) -> [Action] {
        var actions: [Action] = []
        now = time
        switch event {
        case .hello(let id, let entropy, let client):
            hello(id, entropy: entropy, client: client)
        case .joined(let id, let remote):
            members[id] = Member(remote: remote)
            actions.append(.sendState(snapshot(for: id), to: id))
            scheduleViewerAnnouncement(at: time, &actions)
        case .left(let id):
            checkin.memberLeft(id)
            members[id] = nil
            scheduleViewerAnnouncement(at: time, &actions)
        case .received(let text, let id):
            received(text, from: id, at: time, using: &random, &actions)
        case .keyChecked(let id, let verdict):
            keyChecked(id, verdict, &actions)
        case .command(let command, let seq, let client, let awaitReveal, let caller):
            queue.append(Job(command: command, seq: seq, client: client, awaitReveal: awaitReveal, target: .caller(caller)))
            pump(at: time, using: &random, &actions)
        case .timerDue(.motion):
            motionDue(at: time, using: &random, &actions)
        case .timerDue(.viewers):
            viewersDue(at: time, &actions)
        case .timerDue(.entrants):
            checkin.announcementDue(at: time, &actions)
        case .timerDue(.claims):
            claimsDue(at: time, using: &random, &actions)
        case .claim(let device, let caller):
            claim(device: device, caller: caller, at: time, &actions)
        case .checkinJoin(let join, let caller):
            checkinJoin(join, caller: caller, at: time, using: &random, &actions)
        case .entrantsStored(let result):
            entrantsStored(result, at: time, using: &random, &actions)
        case .deviceLinked(let id, let device):
            checkin.deviceLinked(id, device: device)
        case .stored(let result):
            stored(result, at: time, using: &random, &actions)
        case .resynchronized(let restored):
            resynchronizing = false
            if let restored {
                stopMotion(&actions)
                draw = restored
                adoptConfig(restored.config.publicText)
                for id in members.keys { actions.append(.sendState(snapshot(for: id), to: id)) }
            }
            pump(at: time, using: &random, &actions)
        case .hostKeyChanged:
            for (id, member) in members where member.isHost {
                members[id]?.isHost = false
                actions.append(.send(.role(host: false), to: id))
            }
        case .remoteViewers(let count):
            remoteViewers = max(0, count)
            scheduleViewerAnnouncement(at: time, &actions)
        case .remoteEntropy(let key, let entropy):
            remoteEntropy[key] = entropy
        case .beaconFetched(let request, let outcome):
            guard draw.sealingHash == request.lockHash else { break }
            beaconArrived = (request, outcome)
            pump(at: time, using: &random, &actions)
        case .resumeSealed:
            guard draw.sealing != nil, motion == nil else { break }
            announcePhase(.rolling, &actions)
            startRolling(at: time, using: &random, &actions)
            announceBeacon(&actions)
            requestBeacon(at: time.unixMilliseconds, &actions)
        case .resumeRolling:
            guard draw.phase == .rolling, motion == nil else { break }
            announcePhase(.rolling, &actions)
            startRolling(at: time, using: &random, &actions)
        case .resumeStopping(let elapsed):
            guard draw.phase == .stopping, motion == nil else { break }
            announcePhase(.stopping, &actions)
            slowDown(at: time, since: time.instant - max(.zero, elapsed), using: &random, &actions)
        case .continueTicks(let after):
            tickSeq = max(tickSeq, after)
        case .shutdown:
            motion = nil
            viewerTimerArmed = false
            actions.append(.cancel(.motion))
            actions.append(.cancel(.viewers))
            actions.append(.cancel(.entrants))
            actions.append(.cancel(.claims))
        }
        switch event {
        case .joined, .left, .received, .hello, .keyChecked, .hostKeyChanged, .remoteViewers, .remoteEntropy:
            // A page coming, going or saying hello (here or on another instance) changes no shared
            // part of the snapshot (a command does: `received` drops the snapshots for it; the
            // viewer count is refreshed with the viewers timer).
            break
        case .checkinJoin, .deviceLinked:
            // A join changes the snapshot once stored; a linked device only its own (see `device`).
            break
        case .command, .timerDue, .stored, .resynchronized, .shutdown, .resumeRolling, .resumeStopping, .entrantsStored, .continueTicks,
             .claim, .beaconFetched, .resumeSealed:
            snapshots = [:]
        }
        return actions
    }

    // MARK: Messages

    /// A page's entropy (for the next Start) and its client id (a host's resent commands).
    private mutating func hello(_ id: UInt64, entropy: Contribution?, client: String?) {
        if let entropy { members[id]?.entropy = entropy }
        if let client { members[id]?.client = client }
    }

    private mutating func received(_ text: String, from id: UInt64, at time: Time,
                                   using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        guard var member = members[id] else { return }
        let message: ClientMessage
        do {
            message = try DrawMessageParser.parse(text)
        } catch {
            actions.append(.send(.error(code: error.code, seq: nil), to: id))
            return
        }
        switch message {
        case .hello(let entropy, let client):
            hello(id, entropy: entropy, client: client)
        case .sync:
            actions.append(.sendState(snapshot(for: id), to: id))
        case .auth(let key, let client):
            if let client { member.client = client }
            members[id] = member
            actions.append(.checkKey(key, remote: member.remote, member: id))
        case .command(let command, let seq):
            guard member.isHost else {
                actions.append(.send(.error(code: "not_host", seq: nil), to: id))
                return
            }
            queue.append(Job(command: command, seq: seq, client: member.client, awaitReveal: false, target: .member(id)))
            pump(at: time, using: &random, &actions)
            snapshots = [:]
        case .witness(let report):
            witnessed(report, from: id, at: time, &actions)
        }
    }

    private mutating func keyChecked(_ id: UInt64, _ verdict: KeyVerdict, _ actions: inout [Action]) {
        guard members[id] != nil else { return }
        switch verdict {
        case .accepted:
            members[id]?.isHost = true
            actions.append(.send(.role(host: true), to: id))
            if let report = witnesses.latest { actions.append(.send(.witness(report), to: id)) }
        case .refused:
            actions.append(.count(.authFailures))
            actions.append(.send(.error(code: "bad_key", seq: nil), to: id))
        case .rateLimited:
            actions.append(.send(.error(code: "rate_limited", seq: nil), to: id))
        }
    }

    // MARK: Host commands, one at a time

    /// A command that writes holds the queue until the write is done, so a resend or a
    /// double tap always sees the outcome of the first.
    /// Queues the room's own command (`target: .server`) behind the host's.
    mutating func enqueueServerJob(_ command: HostCommand, at time: Time, using random: inout some RandomNumberGenerator,
                                   _ actions: inout [Action]) {
        queue.append(Job(command: command, seq: nil, client: nil, awaitReveal: false, target: .server))
        pump(at: time, using: &random, &actions)
    }

    public mutating func pump(at time: Time, using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        if !isBusy, let (request, outcome) = beaconArrived {
            beaconArrived = nil
            sealed(request, outcome, at: time, using: &random, &actions)
        }
        while !isBusy, !queue.isEmpty {
            let job = queue.removeFirst()
            run(job, at: time, using: &random, &actions)
        }
    }

    /// The contributions of the pages connected now (latest per page).
    private var currentContributions: (values: [Contribution], members: Set<UInt64>) {
        var values = [Contribution]()
        var ids = Set<UInt64>()
        for (id, member) in members {
            if let entropy = member.entropy {
                values.append(entropy)
                ids.insert(id)
            }
        }
        values += remoteEntropy.values
        return (values, ids)
    }

    private mutating func run(_ job: Job, at time: Time, using random: inout some RandomNumberGenerator,
                              _ actions: inout [Action]) {
        if let seq = job.seq, let reply = applied[job.client ?? ""]?.acks[seq] {
            deliver(.success(reply), for: job, &actions)
            return
        }
        let now = time.unixMilliseconds
        if archived {
            actions.append(.count(.refusedCommands))
            deliver(.failure(CommandFailure(code: "draw_archived")), for: job, &actions)
            return
        }
        if case .start = job.command, isCheckinPool, checkin.book.settings.open {
            actions.append(.count(.refusedCommands))
            deliver(.failure(CommandFailure(code: "entries_open")), for: job, &actions)
            return
        }
        if claims.isOpen, job.command.waitsForClaims {
            actions.append(.count(.refusedCommands))
            deliver(.failure(CommandFailure(code: "claim_open")), for: job, &actions)
            return
        }
        if case .checkin(let command) = job.command {
            switch checkinPlan(command, at: time) {
            case .success(let plan):
                write(plan.batch, job: job, candidate: plan.candidate, then: .checkin(plan.change, configText: plan.configText), &actions)
            case .failure(let failure):
                actions.append(.count(.refusedCommands))
                deliver(.failure(failure), for: job, &actions)
            }
            return
        }
        do {
            switch job.command {
            case .checkin:
                break
            case .passUnclaimed:
                let plan = try passPlan(at: time)
                guard !plan.records.isEmpty else {
                    claims.passing = false
                    return
                }
                let entry = AuditEntry(actor: "system", action: "pass", detail: .object([
                    "round": .int(Int64(claims.round ?? 0)),
                    "passes": .array(plan.passes.map { .object(["winner": .string($0.0), "alternate": $0.1.map { .string($0) } ?? .null]) })]))
                write(RecordBatch(command: job.command.name, records: plan.records, audit: entry), job: job, candidate: plan.candidate,
                      then: .pass(plan.passes), &actions)
            case .start(let audience):
                // The round's lock is stored before anything rolls (docs/FAIRNESS.md §1, step 3).
                let contributions = currentContributions
                var candidate = draw
                let records = try candidate.start(contributions: contributions.values, audience: audience, at: now,
                                                  pastWinners: resolvePastWinners())
                let entry = AuditEntry(actor: "host", action: "start", detail: .object([
                    "round": .int(Int64(draw.nextRound)), "audience": audience.map { .string($0) } ?? .null,
                    "contributors": .int(Int64(Set(contributions.values).count))]))
                write(RecordBatch(command: job.command.name, records: records, audit: entry), job: job, candidate: candidate,
                      then: .start(contributors: contributions.members, lockedBefore: draw.commit?.poolHash, lock: records.last),
                      &actions)

            case .stop where draw.config.beacon:
                let beacon = settings.beacon
                var candidate = draw
                let records = try candidate.stopSealed(chain: beacon.chain, relays: beacon.relays, at: now)
                let entry = AuditEntry(actor: "host", action: "stop", detail: .object([
                    "round": .int(Int64(draw.nextRound)), "beaconRound": .int(Int64(candidate.sealing?.beaconRound ?? 0))]))
                write(RecordBatch(command: job.command.name, records: records, audit: entry), job: job, candidate: candidate,
                      then: .seal, &actions)

            case .stop:
                var candidate = draw
                let records = try candidate.stop(at: now, nextSeed: .random(using: &random))
                let entry = AuditEntry(actor: "host", action: "stop", detail: .object(["round": .int(Int64(draw.nextRound))]))
                write(RecordBatch(command: job.command.name, records: records, audit: entry), job: job, candidate: candidate,
                      then: .stop(ranAt: time.instant), &actions)

            case .clear:
                var candidate = draw
                let record = try candidate.clear(at: now)
                let entry = AuditEntry(actor: "host", action: "clear", detail: .object(["record": .int(Int64(record.index))]))
                write(RecordBatch(command: job.command.name, records: [record], clearedThrough: record.index, audit: entry),
                      job: job, candidate: candidate, then: .clear, &actions)

            case .configure, .replacePool:
                var config = draw.config
                switch job.command {
                case .configure(let given): config = given
                case .replacePool(let pool): config.pool = pool
                default: break
                }
                // A check-in pool holds the entrants who joined, never ids a host types.
                if case .checkin = config.pool { config.pool = .checkin(checkin.book.activeIDs) }
                try checkPastDraws(config)
                var candidate = draw
                let duplicates = try candidate.configure(config, pastWinners: config.excludeWinnersOf.compactMap { links.winners(EntrantList.trim($0.code)) })
                let text = candidate.config.storedText
                let entry = AuditEntry(actor: "host", action: "configure", detail: .object([
                    "poolHash": candidate.commit.map { .string($0.poolHash) } ?? .null,
                    "remaining": .int(Int64(clamping: candidate.remaining))]))
                write(RecordBatch(command: job.command.name, records: [], config: text, audit: entry), job: job, candidate: candidate,
                      then: .configure(text: Self.publicConfigText(candidate.config), duplicates: duplicates), &actions)

            case .void(let round, let winner, let reason, let audience):
                var candidate = draw
                let contributions = currentContributions
                let records = try candidate.void(round: round, winner: winner, reason: reason,
                                                 contributions: contributions.values, audience: audience,
                                                 nextSeed: .random(using: &random), at: now)
                let entry = AuditEntry(actor: "host", action: "void", detail: .object([
                    "round": .int(Int64(round)), "winner": winner.json, "reason": .string(reason)]))
                write(RecordBatch(command: job.command.name, records: records, audit: entry), job: job, candidate: candidate,
                      then: .void(contributors: contributions.members, voided: records.first?.voidMessage(),
                                  reason: reason), &actions)
            }
        } catch {
            actions.append(.count(.refusedCommands))
            deliver(.failure(CommandFailure(code: error.code)), for: job, &actions)
        }
    }

    mutating func write(_ batch: RecordBatch, job: Job, candidate: Draw, then: PendingWrite.Continuation,
                                _ actions: inout [Action]) {
        pending = PendingWrite(job: job, candidate: candidate, then: then)
        var batch = batch
        batch.committedSeed = candidate.committedSeed
        // The answer the command gets once stored, for stores that keep it beside the records.
        if let seq = job.seq {
            switch then {
            case .start, .stop, .clear, .seal:
                batch.answer = BatchAnswer(client: job.client ?? "", seq: seq, reply: CommandReply(ack: ack(job)))
            case .configure(_, let duplicates):
                let extra: [String: JSONValue] = ["duplicates": .array(duplicates.map { .string($0) })]
                batch.answer = BatchAnswer(client: job.client ?? "", seq: seq, reply: CommandReply(ack: ack(job, extra)))
            case .void(_, _, let reason):
                let result = candidate.lastResult?.resultMessage(voidReason: reason)
                batch.answer = BatchAnswer(client: job.client ?? "", seq: seq, reply: CommandReply(ack: ack(job), result: result))
            case .checkin, .pass, .sealFinished, .sealVoid:
                break
            }
        }
        actions.append(.store(batch))
    }

    private mutating func stored(_ result: Result<Void, StoreFailure>, at time: Time,
                                 using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        guard let write = pending else { return }
        pending = nil
        let job = write.job
        switch result {
        case .failure(let failure):
            actions.append(.count(.storageFailures))
            actions.append(.count(.refusedCommands))
            actions.append(.logError("storing \(job.command.name) of draw \(code) failed, nothing announced: \(failure.detail)"))
            deliver(.failure(CommandFailure(code: failure.code)), for: job, &actions)
            if case .pass = write.then { passFailed(at: time, &actions) }
            resynchronizing = true
            actions.append(.resynchronize(expectedRecords: draw.recordCount))
        case .success:
            draw = write.candidate
            switch write.then {
            case .start(let contributors, let lockedBefore, let lock):
                frozenMembers = contributors
                interrupted = nil
                beaconVoid = nil
                succeed(job, CommandReply(ack: ack(job)), &actions)
                // Other draws' winners were locked in at Start: pages hear the pool they changed.
                if let commit = draw.commit, commit.poolHash != lockedBefore { actions.append(.announce(.commit(commit))) }
                // The chain's new head: every page's witness holds the lock from Start on.
                if let lock, case .lock(let locked) = lock.body {
                    actions.append(.announce(.lock(.object([
                        "type": .string("lock"), "round": .int(Int64(locked.round)), "index": .int(Int64(lock.index)),
                        "hash": .string(lock.hash), "prev": .string(lock.prev)]))))
                }
                announcePhase(.rolling, &actions)
                startRolling(at: time, using: &random, &actions)
            case .stop(let ranAt):
                actions.append(.count(.rounds))
                stopMotion(&actions)
                if job.awaitReveal {
                    revealWaiters.append(job)
                    actions.append(.count(.commands))
                    remember(job, CommandReply(ack: ack(job)))
                } else {
                    succeed(job, CommandReply(ack: ack(job)), &actions)
                }
                announcePhase(.stopping, &actions)
                slowDown(at: time, since: ranAt, using: &random, &actions)
            case .seal:
                beaconVoid = nil
                if job.awaitReveal {
                    revealWaiters.append(job)
                    actions.append(.count(.commands))
                    remember(job, CommandReply(ack: ack(job)))
                } else {
                    succeed(job, CommandReply(ack: ack(job)), &actions)
                }
                announceBeacon(&actions)
                requestBeacon(at: time.unixMilliseconds, &actions)
            case .sealFinished(let ranAt, let beaconRound):
                lastSealed = (draw.lastRound, beaconRound)
                actions.append(.count(.rounds))
                stopMotion(&actions)
                announceBeacon(&actions)
                announcePhase(.stopping, &actions)
                slowDown(at: time, since: ranAt, using: &random, &actions)
            case .sealVoid(let void):
                beaconVoid = void
                announceBeacon(&actions)
                let waiters = revealWaiters
                revealWaiters = []
                for waiter in waiters { deliver(.failure(CommandFailure(code: "beacon_void")), for: waiter, &actions) }
            case .clear:
                lastTick = nil
                succeed(job, CommandReply(ack: ack(job)), &actions)
                actions.append(.announce(.cleared))
                announcePhase(.idle, &actions)
                // The board is empty: what is left and what the next round draws changed.
                if let commit = draw.commit { actions.append(.announce(.commit(commit))) }
            case .configure(_, let duplicates):
                adoptConfig(draw.config.publicText)
                succeed(job, CommandReply(ack: ack(job, ["duplicates": .array(duplicates.map { .string($0) })])), &actions)
                // One shared frame for every page, with the settings' summary (a page that needs the
                // names fetches them once: `GET /api/draws/<code>/config`).
                actions.append(.announce(.config(configMessageText())))
                if let commit = draw.commit { actions.append(.announce(.commit(commit))) }
            case .void(let contributors, let voided, let reason):
                actions.append(.count(.rounds))
                frozenMembers = contributors
                let result = draw.lastResult?.resultMessage(voidReason: reason)
                succeed(job, CommandReply(ack: ack(job), result: result), &actions)
                if let voided { actions.append(.announce(.void(voided))) }
                announceCheckinWinners(&actions)
                if let result { actions.append(.announce(.result(result))) }
                if let commit = draw.commit { actions.append(.announce(.commit(commit))) }
            case .checkin(let change, let text):
                checkin.apply(change, &actions)
                succeed(job, CommandReply(ack: ack(job, ["entrants": .int(Int64(checkin.book.activeCount))])), &actions)
                if let text {
                    adoptConfig(text)
                    actions.append(.announce(.config(configMessageText())))
                    if let commit = draw.commit { actions.append(.announce(.commit(commit))) }
                }
                actions.append(.announce(.entrantsSettings(checkin.entrantsSettingsMessage)))
            case .pass(let passes):
                actions.append(.count(.commands))
                announceCheckinWinners(&actions)
                passesStored(passes, at: time, &actions)
            }
        }
        pump(at: time, using: &random, &actions)
        flushJoins(&actions)
    }

    private func ack(_ job: Job, _ extra: [String: JSONValue] = [:]) -> JSONValue {
        var members = extra
        members["type"] = .string("ack")
        members["seq"] = job.seq.map { .int($0) } ?? .null
        members["command"] = .string(job.command.name)
        return .object(members)
    }

    private mutating func remember(_ job: Job, _ reply: CommandReply) {
        if let seq = job.seq { applied[job.client ?? "", default: SeqLog()].insert(seq, reply) }
    }

    private mutating func succeed(_ job: Job, _ reply: CommandReply, _ actions: inout [Action]) {
        actions.append(.count(.commands))
        remember(job, reply)
        deliver(.success(reply), for: job, &actions)
    }

    private func deliver(_ outcome: Result<CommandReply, CommandFailure>, for job: Job, _ actions: inout [Action]) {
        switch job.target {
        case .caller(let caller):
            actions.append(.reply(caller: caller, outcome))
        case .member(let id):
            switch outcome {
            case .success(let reply): actions.append(.send(.ack(reply.ack), to: id))
            case .failure(let failure): actions.append(.send(.error(code: failure.code, seq: job.seq), to: id))
            }
        case .server:
            break
        }
    }

    // MARK: Ticks and the slow-down

    private var tickInterval: Duration { .nanoseconds(1_000_000_000 / Int64(max(1, settings.tickHz))) }

    /// A tick, announced with its `seq`; during the slow-down with `landing` (docs/PROTOCOL.md,
    /// "Rolling and Stop"): the first winner and how far the slow-down has come, so every page
    /// lands it the same way (the last one is delivered in order, the others are latest values).
    private mutating func announceTick(_ value: DrawValue, at time: Time, landing: DrawTick.Landing? = nil,
                                       _ actions: inout [Action]) {
        tickSeq += 1
        var tick = DrawTick(seq: tickSeq, at: time.wallMilliseconds, value: value, landing: landing)
        // Check-in with names public: the room reads the names rolling by, not entry ids (issue 34).
        if isCheckinPool, checkin.book.settings.publicNames, case .name(let id) = value, let name = checkin.book.entry(id: id)?.name {
            tick.name = name
        }
        lastTick = tick
        actions.append(.announce(.tick(tick)))
    }

    private mutating func stopMotion(_ actions: inout [Action]) {
        motion = nil
        actions.append(.cancel(.motion))
    }

    mutating func startRolling(at time: Time, using random: inout some RandomNumberGenerator,
                                       _ actions: inout [Action]) {
        actions.append(.cancel(.motion))
        motion = .rolling(due: time.instant)
        roll(at: time, using: &random, &actions)
    }

    /// Ticks are due at start + n × interval, so a late wake-up shortens the next wait instead
    /// of stretching every period. More than one tick behind, the schedule restarts from now
    /// rather than bursting to catch up: ticks are a latest-value stream.
    private mutating func roll(at time: Time, using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        guard case .rolling(var due) = motion, draw.phase == .rolling else {
            motion = nil
            return
        }
        announceTick(draw.rollingValue(using: &random), at: time, &actions)
        let interval = tickInterval
        due += interval
        if due < time.instant - interval { due = time.instant + interval }
        motion = .rolling(due: due)
        actions.append(.schedule(.motion, at: max(time.instant, due)))
    }

    /// Delays between slow-down ticks: from the tick interval, growing by a fifth each time,
    /// adding up to `settings.slowDown`; the last tick shows the first winner.
    public static func slowDownDelays(tickHz: Int, total: Duration) -> [Duration] {
        let totalMs = Double(total.components.seconds) * 1000 + Double(total.components.attoseconds) / 1e15
        var delays = [Double]()
        var next = 1000 / Double(max(1, tickHz))
        var sum = 0.0
        while sum + next < totalMs {
            delays.append(next)
            sum += next
            next *= 1.2
        }
        if totalMs - sum > 0 { delays.append(totalMs - sum) }
        return delays.map { .microseconds(Int64($0 * 1000)) }
    }

    /// The slow-down ends the draw's `slowDown` (else `settings.slowDown`) after the stop ran (`since`): the time its result
    /// took to be stored (an fsync) comes out of the slow-down, not on top of it.
    private mutating func slowDown(at time: Time, since ranAt: ContinuousClock.Instant,
                                   using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        guard case .round(let round)? = draw.lastResult?.body, let first = round.winners.first else {
            reveal(at: time, &actions)
            return
        }
        // The draw's own length (a display setting), else the server's.
        let total = draw.config.slowDown.map { Duration.milliseconds($0) } ?? settings.slowDown
        let left = total - (time.instant - ranAt)
        var delays = Self.slowDownDelays(tickHz: settings.tickHz, total: max(.zero, left))[...]
        guard let delay = delays.popFirst() else {
            // No time left (a slow store, or a new owner taking over late): it lands at once.
            announceTick(first, at: time, landing: DrawTick.Landing(first: first, step: 1, steps: 1), &actions)
            reveal(at: time, &actions)
            return
        }
        motion = .slowing(remaining: delays, first: first, step: 0, steps: delays.count + 1)
        actions.append(.schedule(.motion, at: time.instant + delay))
    }

    private mutating func motionDue(at time: Time, using random: inout some RandomNumberGenerator,
                                    _ actions: inout [Action]) {
        switch motion {
        case nil:
            return
        case .rolling:
            roll(at: time, using: &random, &actions)
        case .slowing(var remaining, let first, let step, let steps):
            guard let delay = remaining.popFirst() else {
                announceTick(first, at: time, landing: DrawTick.Landing(first: first, step: steps, steps: steps), &actions)
                motion = nil
                reveal(at: time, &actions)
                return
            }
            announceTick(draw.rollingValue(using: &random), at: time,
                         landing: DrawTick.Landing(first: first, step: step + 1, steps: steps), &actions)
            motion = .slowing(remaining: remaining, first: first, step: step + 1, steps: steps)
            actions.append(.schedule(.motion, at: time.instant + delay))
        }
    }

    private mutating func reveal(at time: Time, _ actions: inout [Action]) {
        guard (try? draw.reveal()) != nil else { return }
        let result = draw.lastResult?.resultMessage()
        // The winners' names first, so pages show the result with them.
        announceCheckinWinners(&actions)
        if let result { actions.append(.announce(.result(result))) }
        actions.append(.announce(.phase(.revealed)))
        if let commit = draw.commit { actions.append(.announce(.commit(commit))) }
        openClaims(at: time, &actions)
        let waiters = revealWaiters
        revealWaiters = []
        let reply = CommandReply(ack: .object(["type": .string("ack"), "command": .string("stop")]), result: result)
        for waiter in waiters { deliver(.success(reply), for: waiter, &actions) }
    }

    // MARK: Viewer count

    /// At most one `viewers` message a second, and only when the count changed.
    private mutating func scheduleViewerAnnouncement(at time: Time, _ actions: inout [Action]) {
        guard !viewerTimerArmed else { return }
        viewerTimerArmed = true
        actions.append(.schedule(.viewers, at: time.instant + .seconds(1)))
    }

    private mutating func viewersDue(at time: Time, _ actions: inout [Action]) {
        guard viewerTimerArmed else { return }
        viewerTimerArmed = false
        guard viewerCount != announcedViewers else { return }
        announcedViewers = viewerCount
        actions.append(.announce(.viewers(viewerCount)))
        scheduleViewerAnnouncement(at: time, &actions)
    }

    // MARK: Messages out

    func announcePhase(_ phase: DrawPhase, _ actions: inout [Action]) {
        actions.append(.announce(.phase(phase)))
    }

    /// The `config` message after `configure`: the settings and the counts that follow from them.
    public func configMessageText() -> String {
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
        return "{\"config\":" + summaryText + "," + text
    }

    /// What member `id`'s snapshot shows (nil: the public REST view, a viewer that sent nothing).
    public func snapshotVariant(for id: UInt64?) -> SnapshotVariant {
        let member = id.flatMap { members[$0] }
        var contributed: Bool?
        if let id, let frozenMembers { contributed = frozenMembers.contains(id) }
        var device: String?
        if let id { device = checkin.device(ofMember: id) }
        return SnapshotVariant(host: member?.isHost == true, contributed: contributed, device: device)
    }

    /// The `state` snapshot for member `id`: built on the first join after a change and shared
    /// by every join of the same variant until the next change.
    public mutating func snapshot(for id: UInt64?) -> StateSnapshot {
        let variant = snapshotVariant(for: id)
        let key = StateSnapshot.Key(variant: variant, generation: snapshotGeneration)
        if let text = snapshots[variant] { return StateSnapshot(text: text, key: key) }
        let text = buildStateText(variant)
        // A checked-in phone's snapshot (its own `me`) is nobody else's: not kept, so the cache
        // holds a handful of shared variants, not one per entrant.
        guard variant.device == nil, !claims.isOpen else { return StateSnapshot(text: text, key: nil) }
        snapshots[variant] = text
        return StateSnapshot(text: text, key: key)
    }

    /// The `state` snapshot for member `id` (nil: the public REST view), built afresh.
    public func stateText(for id: UInt64?) -> String {
        buildStateText(snapshotVariant(for: id))
    }

    private func buildStateText(_ variant: SnapshotVariant) -> String {
        let contributed: JSONValue = variant.contributed.map { .bool($0) } ?? .null
        let draw = self.draw
        let commit: JSONValue = draw.commit.map {
            .object(["round": .int(Int64($0.round)), "commitment": .string($0.commitment), "poolHash": .string($0.poolHash)])
        } ?? .null
        let listed = BoardSummary.listed(visibleBoard)
        var state: JSONValue = .object([
            "type": .string("state"),
            "code": .string(code),
            "role": .string(variant.host ? "host" : "viewer"),
            "phase": .string(draw.phase.rawValue),
            "remaining": .int(Int64(clamping: draw.remaining)),
            "exhausted": .bool(draw.isExhausted),
            "currentPrize": draw.currentPrize.map { .int(Int64($0)) } ?? .null,
            "prizesDone": .bool(draw.prizesDone),
            "round": .int(Int64(draw.nextRound)),
            "commit": commit,
            "plan": draw.armed.json,
            // While the slow-down runs, the new round is stored but not yet announced. The board is
            // bounded (`BoardSummary`): the latest rounds with their first winners; the rest is paged.
            "rounds": .array(listed.rounds.map { $0.summaryJSON() }),
            "olderRounds": .int(Int64(listed.older)),
            "result": draw.phase == .stopping ? .null : (draw.lastResult?.snapshotResult() ?? .null),
            "viewers": .int(Int64(viewerCount)),
            "tick": lastTick.map(DrawWire.json) ?? .null,
            "interrupted": interrupted.map { .object(["round": .int(Int64($0))]) } ?? .null,
            "algorithm": .string(Fairness.algorithm),
            "contributed": contributed,
            "checkin": checkinState(host: variant.host, device: variant.device),
            "claims": claimsJSON(at: now),
            "beacon": beaconJSON,
        ])
        // Only when set: a draw that was never archived keeps the snapshot it always had.
        if archived, case .object(var members) = state {
            members["archived"] = .bool(true)
            state = .object(members)
        }
        // The settings' summary is spliced in as text, encoded once per configure.
        var text = state.canonicalString
        text.removeFirst()
        return "{\"config\":" + summaryText + "," + text
    }
}

/// The room's counters on `/metrics` (`DrawMetrics`).
public enum DrawMetric: Sendable {
    case rounds, commands, refusedCommands, storageFailures, authFailures
}
