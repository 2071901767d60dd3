import Glibc
import Beacon
import DrawEngine
import DrawRoomCore
import JSON
import Posix
import Server
import Locking
import WebSocketCore

/// One draw's live room: the thin shell on the draw loop around `DrawRoomState`. It feeds
/// the state machine events with the time, and performs the actions it returns: frames to
/// pages (through `group`, whose members sit on their own loops), timers on `loop`, writes
/// to `store`, replies to callers. Pages on other loops reach it through the methods below,
/// which hop to `loop`.
///
/// A stored draw's room is made on its first use, before its draw is read back (`init(code:
/// hostKeyHash:…)`, then `finishLoading`): until then, and while a `configure` waits for the
/// draws it links to be read, what pages and callers ask waits in `waiting`, in order
/// (DrawRoom+Loading.swift).
///
/// `@unchecked Sendable`: `code`, `loop`, `group`, `store`, `limiter`, `metrics` are
/// immutable, `hostKeyHash` guards itself; every other stored property is used only on `loop`.
final class DrawRoom: @unchecked Sendable {
    let code: String
    let loop: EventLoop
    let group: BroadcastGroup
    /// Cluster mode: gates and forwards what the room announces (loop only; nil single-box).
    weak var announcer: (any DrawAnnouncer)?
    let hostKeyHash: HostKeyHash
    /// The named operators' keys (issue #41; empty in cluster mode).
    let operators: OperatorKeys
    private let store: any DrawRecordStore
    private let limiter: AuthRateLimiter
    private let metrics: DrawMetrics
    /// Check-in attempt limits (#14).
    let checkinLimits = CheckinLimits()

    /// The room's state machine; nil only while a lazily made room waits for its draw (`holds` >
    /// 0 then). In a box so that `state` reads it in place: every read of an optional struct
    /// property (`DrawRoomState!`) copied the whole state, several times per event (callgrind:
    /// about 5 % of a join's instructions).
    private var box: StateBox?
    var state: DrawRoomState {
        _read { yield box!.value }
        _modify { yield &box!.value }
    }
    var isLoaded: Bool { box != nil }

    final class StateBox {
        var value: DrawRoomState
        init(_ value: DrawRoomState) { self.value = value }
    }

    /// The state machine from `draw` (first use, or read back).
    func load(_ value: DrawRoomState) { box = StateBox(value) }
    /// Drops the state machine (an idle draw leaves memory).
    func unload() { box = nil }
    /// Reasons events wait (1 while loading; 1 per `configure` waiting for linked draws). Loop only.
    var holds = 0
    /// What arrived while `holds` > 0, in order; `fail` answers it if loading failed. Loop only.
    var waiting: [(run: () -> Void, fail: (() -> Void)?)] = []
    /// The first entry of `waiting` not run yet. Loop only.
    var waitingHead = 0
    /// Other rooms waiting for this one's draw (to read its winners), run once it is restored. Loop only.
    var restoredWaiters: [() -> Void] = []
    /// Loading failed: the service forgot this room; what still reaches it is refused. Loop only.
    var loadFailed = false
    /// The links to other draws (kept for a state made later). Loop only.
    var links = PastDrawLinks()
    private var handles: [UInt64: WebSocketSessionHandle] = [:]
    private var timers: [DrawRoomState.Timer: ScheduledTimer] = [:]
    /// The `state` snapshots' frames (encoded and compressed once), shared by every page of a
    /// variant until the state machine's snapshots change (a new generation). Loop only.
    private var snapshotFrames: [DrawRoomState.StateSnapshot.Key: BroadcastFrame] = [:]
    private var callers: [UInt64: @Sendable (Result<CommandReply, CommandFailure>) -> Void] = [:]
    private var nextCaller: UInt64 = 0
    /// When the round being revealed was stopped (for `tombola_draw_reveal_delay_seconds`). Loop only.
    private var stoppedAt: ContinuousClock.Instant?
    private var random = SystemRandomNumberGenerator()
    /// Turns what the room announces into webhook events (issue #43, item 4). Loop only.
    private lazy var webhookEvents = WebhookEventMapper(code: code)
    /// This draw's winners for other draws' `excludeWinnersOf`, republished when records are added.
    /// nil until a lazily made room has its draw: other draws wait for it (`whenRestored`).
    private let winnersForOthers: Lock<PastWinners?>
    var publishedRecords = -1
    private let documentCache = SettingsDocumentCache()
    let settings: DrawRoomSettings

    /// `draw` must already have a stored pending commitment.
    convenience init(code: String, draw: Draw, hostKeyHash: String, loop: EventLoop, store: any DrawRecordStore,
                     limiter: AuthRateLimiter, settings: DrawRoomSettings, metrics: DrawMetrics, group: BroadcastGroup = BroadcastGroup(),
                     operators: OperatorKeys = OperatorKeys()) {
        self.init(code: code, draw: draw as Draw?, hostKeyHash: hostKeyHash, loop: loop, store: store, limiter: limiter,
                  settings: settings, metrics: metrics, group: group, operators: operators)
    }

    /// A stored draw's room before its draw is read back: everything waits until `finishLoading`.
    convenience init(code: String, hostKeyHash: String, loop: EventLoop, store: any DrawRecordStore,
                     limiter: AuthRateLimiter, settings: DrawRoomSettings, metrics: DrawMetrics, operators: OperatorKeys = OperatorKeys()) {
        self.init(code: code, draw: nil, hostKeyHash: hostKeyHash, loop: loop, store: store, limiter: limiter,
                  settings: settings, metrics: metrics, group: BroadcastGroup(), operators: operators)
    }

    private init(code: String, draw: Draw?, hostKeyHash: String, loop: EventLoop, store: any DrawRecordStore,
                 limiter: AuthRateLimiter, settings: DrawRoomSettings, metrics: DrawMetrics, group: BroadcastGroup,
                 operators: OperatorKeys) {
        self.code = code
        self.operators = operators
        self.group = group
        self.hostKeyHash = HostKeyHash(hostKeyHash)
        self.loop = loop
        self.store = store
        self.limiter = limiter
        self.metrics = metrics
        self.settings = settings
        self.box = draw.map { StateBox(DrawRoomState(code: code, draw: $0, settings: settings)) }
        self.holds = draw == nil ? 1 : 0
        self.winnersForOthers = Lock(draw?.winnersForExclusion(code: code))
    }

    /// Wires `excludeWinnersOf` to the other draws (`DrawService`, once every room exists).
    func connect(_ links: PastDrawLinks) {
        loop.execute { [self] in
            self.links = links
            if isLoaded { apply(.linksChanged(links)) }
        }
    }

    /// This draw's winners (every winner not voided, with the chain's head), from any thread.
    var winners: PastWinners? { winnersForOthers.withLock { $0 } }

    /// Publishes the draw's winners for other draws (loop only).
    func publishWinners(_ winners: PastWinners) {
        winnersForOthers.withLock { $0 = winners }
    }

    /// Whether `key` controls this draw: the owner's host key or an active operator's, in any
    /// role (constant-time on the digests); REST routes then check the role (`OperatorGate`),
    /// the room each command (`role_forbidden`). From any thread.
    func isHostKey(_ key: String) -> Bool {
        hostKeyHash.matches(key) || operators.lookup(key) != nil
    }

    // MARK: Pages and callers (from any thread)

    /// A page connected: it gets a `state` snapshot. `handle`'s session must already be in `group`.
    /// `device`: the hash of the page's check-in device cookie, if it sent one.
    func join(_ handle: WebSocketSessionHandle, remote: String, device: String? = nil) {
        let started = ContinuousClock.now
        whenReady({ [self] in
            defer { metrics.joinTime.observe(ContinuousClock.now - started) }
            handles[handle.id] = handle
            // Linked first, so the `state` the page gets on joining already knows its entry (`me`).
            if let device { apply(.deviceLinked(handle.id, device: device)) }
            apply(.joined(handle.id, remote: remote))
        }, otherwise: {
            handle.send(text: DrawWire.errorText("storage_failed", seq: nil))
            handle.close(code: .tryAgainLater, reason: "draw unavailable")
        })
    }

    /// A phone's check-in; `completion` gets the ack with the entry, or the refusal.
    func checkin(_ join: CheckinJoin, completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        whenReady({ [self] in
            nextCaller += 1
            callers[nextCaller] = completion
            apply(.checkinJoin(join, caller: nextCaller))
        }, otherwise: { completion(.failure(CommandFailure(code: "storage_failed"))) })
    }

    /// A phone claims its win (#26); `completion` gets `{"claimed":true,…}` or the refusal.
    func claim(device: String, completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        whenReady({ [self] in
            nextCaller += 1
            callers[nextCaller] = completion
            apply(.claim(device: device, caller: nextCaller))
        }, otherwise: { completion(.failure(CommandFailure(code: "storage_failed"))) })
    }

    func leave(_ id: UInt64) {
        whenReady { [self] in
            apply(.left(id))
            handles[id] = nil
        }
    }

    func received(_ text: String, from id: UInt64) {
        whenReady { [self] in
            // A `configure` naming draws not read back yet waits for them (their winners are excluded).
            if let codes = Self.linkedCodes(inMessage: text) { return afterLinkedDraws(codes) { [self] in apply(.received(text, from: id)) } }
            apply(.received(text, from: id))
        }
    }

    /// A page's `hello` read elsewhere (a new cluster owner takes up its follower's pages), in
    /// the order of the page's other messages.
    func hello(_ id: UInt64, entropy: Contribution?, client: String?) {
        whenReady { [self] in apply(.hello(id, entropy: entropy, client: client)) }
    }

    /// Runs a host command (already authenticated) and reports when it is applied, or for
    /// `stop` with `awaitReveal` once the winners are revealed.
    func perform(_ command: HostCommand, seq: Int64?, client: String?, awaitReveal: Bool = false,
                 completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        whenReady({ [self] in
            let run = { [self] in
                nextCaller += 1
                callers[nextCaller] = completion
                apply(.command(command, seq: seq, client: client, awaitReveal: awaitReveal, caller: nextCaller))
            }
            if case .configure(let config) = command { return afterLinkedDraws(config.excludeWinnersOf.map(\.code), run) }
            run()
        }, otherwise: { completion(.failure(CommandFailure(code: "storage_failed"))) })
    }

    /// Keeps a caller's completion for its `.reply`; returns its number. Loop only.
    func registerCaller(_ completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) -> UInt64 {
        nextCaller += 1
        callers[nextCaller] = completion
        return nextCaller
    }

    /// The public `state` (role viewer) for REST, as JSON text: the shared snapshot pages get.
    func publicState(_ completion: @escaping @Sendable (String?) -> Void) {
        whenReady({ [self] in
            completion(state.snapshot(for: nil).text)
        }, otherwise: { completion(nil) })
    }

    /// The full settings as `GET /api/draws/<code>/config` serves them: made (and gzipped) once
    /// per configure, off the draw loop, and shared by every download until the next one.
    func settingsDocument(_ completion: @escaping @Sendable (SettingsDocument?) -> Void) {
        whenReady({ [self] in
            let text = state.configText
            let hash = state.configHash
            let cache = documentCache
            // The gzip of a 100,000-name list takes tens of milliseconds: not on the draw loop
            // (on a thread of its own, the one way work leaves a loop: docs/ARCHITECTURE.md).
            if !DetachedThread.start({ completion(cache.document(text: text, hash: hash)) }) { completion(nil) }
        }, otherwise: { completion(nil) })
    }

    /// Every record, for exports: read from the store (the archive), not from memory; after the
    /// room is loaded, so the export already holds this run's `restart` commitment.
    func export(_ completion: @escaping @Sendable (Result<[DrawRecord], any Error>) -> Void) {
        whenReady({ [self] in
            store.chain(of: code) { completion($0.map(\.records)) }
        }, otherwise: { completion(.failure(CommandFailure(code: "storage_failed"))) })
    }

    /// Archives (read-only: every command is `draw_archived`) or un-archives the room. Refused
    /// with `wrong_phase` while a round rolls or a command is in flight.
    func setArchived(_ archived: Bool, completion: @escaping @Sendable (Result<Void, CommandFailure>) -> Void) {
        whenReady({ [self] in
            guard state.isSettled || !archived else { return completion(.failure(CommandFailure(code: "wrong_phase"))) }
            apply(.archivedChanged(archived))
            completion(.success(()))
        }, otherwise: { completion(.failure(CommandFailure(code: "storage_failed"))) })
    }

    /// The draw was deleted: its pages are closed (they reconnect to a draw that no longer exists) and its timers stop.
    func evict() {
        loop.execute { [self] in
            for handle in handles.values { handle.close(code: .goingAway, reason: "draw deleted") }
            handles = [:]
            if isLoaded { apply(.shutdown) }
        }
    }

    /// Stops the timers (server shutdown).
    func shutdown() {
        loop.execute { [self] in
            if isLoaded { apply(.shutdown) }
        }
    }

    // MARK: Performing actions (on the loop)

    func apply(_ event: DrawRoomState.Event) {
        let now = DrawRoomState.Time(instant: .now, wallMilliseconds: WallClock.unixMilliseconds())
        let phase = state.draw.phase
        webhookEvents.learn(open: state.checkin.book.settings.open)
        let actions = state.handle(event, at: now, using: &random)
        if phase != .stopping && state.draw.phase == .stopping { stoppedAt = now.instant }
        if phase == .stopping && state.draw.phase != .stopping, let stoppedAt {
            metrics.revealDelay.observe(now.instant - stoppedAt)
            self.stoppedAt = nil
        }
        // A round being slowed down is stored but not announced yet: its winners are published to
        // other draws once revealed, so no other draw's lock can hint at them earlier.
        if state.draw.phase != .stopping, state.draw.recordCount != publishedRecords {
            publishedRecords = state.draw.recordCount
            let winners = state.draw.winnersForExclusion(code: code)
            winnersForOthers.withLock { $0 = winners }
        }
        for action in actions { perform(action, now: now) }
        announcer?.settled(self)
    }

    /// The public `state` (role viewer) as JSON text. Loop only.
    var publicStateText: String { state.stateText(for: nil) }

    /// The draw as the room holds it. Loop only.
    var currentDraw: Draw { state.draw }

    private func perform(_ action: DrawRoomState.Action, now: DrawRoomState.Time) {
        switch action {
        case .send(let message, let id):
            handles[id]?.send(text: DrawWire.text(message))
        case .sendState(let snapshot, let id):
            handles[id]?.send(frame(for: snapshot), stream: .reliable)
        case .announce(let announcement):
            let text = DrawWire.text(announcement)
            let stream: OutboundStream = announcement.isLatestValue ? .latestValue : .reliable
            if let announcer {
                guard announcer.mayAnnounce() else { return }
                if case .tick(let tick) = announcement {
                    announcer.announcedTick(text, seq: tick.seq, stream: stream)
                } else {
                    announcer.announced(text, kind: announcement.kind, stream: stream)
                }
            }
            // Here, past the cluster's gate: only the instance that announces (the owner) delivers, once per event.
            if let webhooks = ServerWebhooks.registry {
                webhooks.deliver(webhookEvents.events(for: announcement, at: Int64(now.wallMilliseconds)), code: code)
            }
            group.broadcast(text: text, stream: stream)
        case .checkKey(let key, let remote, let id):
            // Held by the limiter for milliseconds at most (cluster mode): a strong capture is no cycle,
            // and forms no weak reference (a side table LeakSanitizer cannot see from a room alive at exit).
            // A named operator's key (issue #41) is accepted like the owner's; the room learns whose it is.
            let verdict = limiter.attempt(remote, check: { [self] in isHostKey(key) }) { [self] verdict in
                keyChecked(id, verdict, key: key)
            }
            if let verdict {
                if verdict == .accepted, !hostKeyHash.matches(key), let ref = operators.lookup(key) { apply(.operatorIdentified(id, ref)) }
                apply(.keyChecked(id, verdict))
            }
        case .reply(let caller, let outcome):
            callers.removeValue(forKey: caller)?(outcome)
        case .storeEntrants(let batch):
            store.append(batch, to: code) { [self] result in
                let mapped = result.mapError { DrawRoomState.StoreFailure(code: store.errorCode(for: $0), detail: "\($0)") }
                loop.execute { [self] in apply(.entrantsStored(mapped)) }
            }
        case .store(let batch):
            let store = self.store
            let started = ContinuousClock.now
            store.append(batch, to: code) { [self] result in
                metrics.storeLatency.observe(ContinuousClock.now - started)
                if case .success = result { DrawLog.stored(batch.records, command: batch.command, code: code) }
                let mapped = result.mapError { DrawRoomState.StoreFailure(code: store.errorCode(for: $0), detail: "\($0)") }
                loop.execute { [self] in apply(.stored(mapped)) }
            }
        case .audit(let entry):
            let code = self.code
            store.append(RecordBatch(records: [], audit: entry), to: code) { result in
                if case .failure(let error) = result { DrawLog.error("audit \(entry.action) for \(code): \(error)", code: code) }
            }
        case .resynchronize(let expected):
            resynchronize(expectedRecords: expected)
        case .schedule(let timer, let instant):
            timers[timer]?.cancel()
            // Strong: a `ScheduledTimer` is only a handle (no cycle), and the loop lets go of the
            // closure once it fired or was cancelled (a weak capture would form a side table).
            timers[timer] = loop.scheduleTimer(after: max(.zero, instant - now.instant)) { [self] in
                timers[timer] = nil
                apply(.timerDue(timer))
            }
        case .cancel(let timer):
            timers.removeValue(forKey: timer)?.cancel()
        case .count(let metric):
            switch metric {
            case .rounds: metrics.rounds.increment()
            case .commands: metrics.commands.increment()
            case .refusedCommands: metrics.refusedCommands.increment()
            case .storageFailures: metrics.storageFailures.increment()
            case .authFailures: metrics.authFailures.increment()
            }
        case .logError(let message):
            DrawLog.error(message, code: code)
        case .fetchBeacon(let request):
            fetchBeacon(request)
        case .prepareConfigure(let plan):
            prepareConfigure(plan)
        }
    }

    /// A large pool's configure (validation, the lock's hashing, the settings' texts: ~0.4 s for a
    /// private list of 100,000 names) on a thread of its own (`DetachedThread`: docs/ARCHITECTURE.md),
    /// so the draw loop keeps every other draw's ticks going; the room's queue waits for it. A
    /// system that refuses a thread gets the command refused `busy`, nothing changed.
    private func prepareConfigure(_ plan: ConfigurePlan) {
        let started = DetachedThread.start { [self] in
            let outcome = plan.run()
            loop.execute { [self] in apply(.configurePrepared(outcome)) }
        }
        if !started { loop.execute { [self] in apply(.configurePrepared(plan.refused)) } }
    }

    /// Fetches drand round R (docs/FAIRNESS.md §13): the loop waits until the attempt's start (R's
    /// due time, or later for a retry) with a timer (at most 600 s at a time), then
    /// `BeaconClient.fetchReport(then:)` asks the relays with libcurl on a detached thread of its
    /// own (`DetachedThread`, the one way blocking work leaves a loop: docs/ARCHITECTURE.md),
    /// never on the loop nor on a shared worker; the outcome, with the relays skipped for an
    /// invalid value (logged here), comes back to the loop for the state machine.
    private func fetchBeacon(_ request: BeaconRequest) {
        let wait = max(0, request.startMillis - BeaconClient.nowMillis())
        _ = loop.scheduleTimer(after: .milliseconds(min(wait, 600_000))) { [self] in
            guard isLoaded else { return }
            // A retry hours away waits in steps of at most 600 s.
            if wait > 600_000 { return fetchBeacon(request) }
            let client = BeaconClient(allowHTTP: request.allowHTTP)
            let code = self.code
            client.fetchReport(BeaconSource(chain: request.chain, relays: request.relays), round: request.beaconRound,
                               deadlineMillis: request.deadlineMillis) { [self] report in
                let fetched: BeaconFetch = switch report.outcome {
                case .value(let value, let relays): .value(randomness: value.randomness, signature: value.signature, relays: relays)
                case .failed(let reason): .failed(reason)
                }
                let skipped = report.skipped.map { "\($0.relay): \($0.problem)" }
                for line in skipped { DrawLog.error("drand round \(request.beaconRound): relay skipped (\(line))", code: code) }
                loop.execute { [self] in
                    guard isLoaded else { return }
                    apply(.beaconFetched(request, fetched, skipped: skipped))
                }
            }
        }
    }

    /// The frame of a `state` snapshot: shared ones are encoded once per variant and generation.
    private func frame(for snapshot: DrawRoomState.StateSnapshot) -> BroadcastFrame {
        guard let key = snapshot.key else { return BroadcastFrame(text: snapshot.text) }
        if let frame = snapshotFrames[key] { return frame }
        // A new generation: the older frames show a state that is gone.
        if let old = snapshotFrames.keys.first, old.generation != key.generation { snapshotFrames = [:] }
        let frame = BroadcastFrame(text: snapshot.text)
        snapshotFrames[key] = frame
        return frame
    }

    /// After a failed write: if part of it reached the store anyway, rebuild from the store
    /// (idle, with a fresh commitment) so memory and disk never disagree.
    private func resynchronize(expectedRecords: Int) {
        let store = self.store
        let code = self.code
        store.chain(of: code) { [self] result in
            guard case .success(let chain) = result, chain.records.count != expectedRecords,
                  let config = DrawPersistence.decode(chain.configJSON),
                  var restored = try? Draw(config: config, restoring: chain.records) else {
                if case .failure(let error) = result { DrawLog.error("rereading draw \(code) failed: \(error)", code: code) }
                loop.execute { [self] in apply(.resynchronized(nil)) }
                return
            }
            restored.software = BinaryIdentity.software
            guard let record = try? restored.prepareFreshCommitment() else {
                loop.execute { [self] in apply(.resynchronized(nil)) }
                return
            }
            let rebuilt = restored
            store.append(RecordBatch(records: [record], committedSeed: rebuilt.committedSeed), to: code) { [self] appended in
                if case .failure(let error) = appended { DrawLog.error("recommitting draw \(code) failed: \(error)", code: code) }
                loop.execute { [self] in apply(.resynchronized(appended.isSuccess ? rebuilt : nil)) }
            }
        }
    }
}

private extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
