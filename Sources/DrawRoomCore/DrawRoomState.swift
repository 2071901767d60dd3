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
    public let code: String
    public let settings: DrawRoomSettings
    /// The other draws `excludeWinnersOf` may name (`.linksChanged`).
    public internal(set) var links = PastDrawLinks()
    public internal(set) var draw: Draw
    public internal(set) var members: [UInt64: Member] = [:]
    /// Members whose entropy went into the current/last round; nil before any round here.
    var frozenMembers: Set<UInt64>?
    var tickSeq: Int64 = 0
    var lastTick: DrawTick?
    /// The round the previous run left rolling (no winner drawn), announced in `state` until the next Start.
    public internal(set) var interrupted: Int?
    /// The round the previous run left rolling and this one carried on (issue #40), announced in
    /// `state` until the next Start.
    public internal(set) var resumed: Int?
    var motion: Motion?
    var queue: [Job] = []
    var pending: PendingWrite?
    /// A configure being worked out off the loop (`ConfigurePlan`); commands wait meanwhile.
    var preparing: Job?
    /// When `preparing` is a check-in command: the rest of its write, made once its pool is back.
    var preparingCheckin: CheckinPlan?
    var resynchronizing = false
    var applied: [String: SeqLog] = [:]
    /// The full settings (canonical JSON), as stored and as `GET /api/draws/<code>/config` serves them.
    public internal(set) var configText: String
    /// SHA-256 hex of `configText`: the `hash` of the settings summary and the download's ETag.
    public internal(set) var configHash: String
    /// The settings as `state` and `config` carry them (`DrawConfig.summaryJSON`).
    var summaryText: String
    /// The `state` snapshot per variant (role, contributed), built once and shared by every join
    /// until something it shows changes; `viewers` is the count when it was built (the throttled
    /// `viewers` announcement rebuilds it at most once a second).
    var snapshots: [SnapshotVariant: String] = [:] {
        didSet { if snapshots.isEmpty { snapshotGeneration &+= 1 } }
    }
    /// Counts the times `snapshots` was emptied, so a shell's cache of encoded frames knows when to drop them.
    var snapshotGeneration = 0
    var announcedViewers = 0
    var viewerTimerArmed = false
    var revealWaiters: [Job] = []
    var remoteViewers = 0
    var remoteEntropy: [String: Contribution] = [:]
    /// The pages counted in `viewers`: this room's members and those of other instances.
    var viewerCount: Int { members.count + remoteViewers }
    /// Check-in (#14): the entrant book and the joins in flight, a sub-machine of its own
    /// (CheckinState.swift; the room's side of it: DrawRoomState+Checkin.swift).
    public internal(set) var checkin = CheckinState()
    /// Claims (#26): the latest claim round's windows (DrawRoomState+Claim.swift).
    public internal(set) var claims = ClaimBook()
    /// The latest event's time (for `state.claims`' time left).
    public internal(set) var now: Time?
    /// The latest beacon void of the round rolling now (shown until the next Stop or Start).
    var beaconVoid: BeaconVoidShown?
    /// A drand value (or failure) that came while a write was in flight; handled by `pump`.
    var beaconArrived: (BeaconRequest, BeaconFetch, skipped: [String])?
    /// The wait for the sealed round's drand round: attempts, the latest problem, the next try.
    var beaconWait = BeaconWait()
    /// The latest round sealed here by drand (round, drand round), for pages' "sealed by drand round R".
    var lastSealed: (round: Int, beaconRound: UInt64)?

    /// `draw` must already have a stored pending commitment. What the store read back with it:
    /// the check-in `book`, the round the previous run left rolling (`interrupted`: abandoned;
    /// `resumed`: carried on), and the
    /// other draws `excludeWinnersOf` may name (`links`).
    public init(code: String, draw: Draw, settings: DrawRoomSettings, book: CheckinBook? = nil, interrupted: Int? = nil,
                resumed: Int? = nil, links: PastDrawLinks = PastDrawLinks()) {
        self.code = code
        self.draw = draw
        self.settings = settings
        // Its next `commit` records name the program writing them (issue #47).
        if let software = settings.software { self.draw.software = software }
        self.interrupted = interrupted
        self.resumed = resumed
        self.links = links
        if let book { checkin.book = book }
        self.configText = ""
        self.configHash = ""
        self.summaryText = ""
        adoptConfig(draw.config.publicText)
    }

    mutating func adoptConfig(_ text: String) {
        configText = text
        configHash = SHA256.hexDigest(Array(text.utf8))
        summaryText = draw.config.summaryJSON(entrantsHash: draw.entrantsHash, entrantCount: draw.entrantCount,
                                              hash: configHash).canonicalString
        snapshots = [:]
    }

    /// Archived by the admin (`POST /api/draws/<code>/archive`): read-only, every command is
    /// `draw_archived`. The snapshot says so (`"archived":true`), so a page knows as it opens.
    public internal(set) var archived = false {
        didSet { if archived != oldValue { snapshots = [:] } }
    }
    /// Witness reports relayed to the host pages (WitnessRelay.swift).
    var witnesses = WitnessLedger()

    /// Whether nothing is moving: no roll or slow-down, no write, no queued command (archiving waits for this).
    public var isSettled: Bool { !isBusy && queue.isEmpty && motion == nil && draw.phase != .rolling && draw.phase != .stopping }

    /// Whether a write (or the check after a failed one) or a configure off the loop is in flight; commands wait meanwhile.
    public var isBusy: Bool { pending != nil || preparing != nil || resynchronizing || checkin.writing }

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
        case .commandBy(let ref, let command, let seq, let client, let awaitReveal, let caller):
            queue.append(Job(command: command, seq: seq, client: client, awaitReveal: awaitReveal, target: .caller(caller), by: ref))
            pump(at: time, using: &random, &actions)
        case .operatorIdentified(let id, let ref):
            operatorIdentified(id, ref)
        case .operatorRevoked(let id):
            operatorRevoked(id, &actions)
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
                if let software = settings.software { draw.software = software }
                adoptConfig(restored.config.publicText)
                for id in members.keys { actions.append(.sendState(snapshot(for: id), to: id)) }
            }
            pump(at: time, using: &random, &actions)
        case .hostKeyChanged:
            for (id, member) in members where member.isHost {
                members[id]?.isHost = false
                members[id]?.operatorRef = nil
                actions.append(.send(.role(host: false), to: id))
            }
        case .remoteViewers(let count):
            remoteViewers = max(0, count)
            scheduleViewerAnnouncement(at: time, &actions)
        case .remoteEntropy(let key, let entropy):
            remoteEntropy[key] = entropy
        case .configurePrepared(let outcome):
            configurePrepared(outcome, at: time, using: &random, &actions)
        case .beaconFetched(let request, let outcome, let skipped):
            guard draw.sealingHash == request.lockHash else { break }
            // A stale attempt's failure is dropped here, so it cannot hide a newer attempt's value.
            if case .failed = outcome, request.attempt != beaconWait.attempt { break }
            beaconArrived = (request, outcome, skipped)
            pump(at: time, using: &random, &actions)
        case .resumeSealed:
            guard draw.sealing != nil, motion == nil else { break }
            // A void's replacement waits on a revealed board; a sealed round rolls on.
            if !draw.sealingReplacement {
                announcePhase(.rolling, &actions)
                startRolling(at: time, using: &random, &actions)
            }
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
        case .linksChanged(let links):
            self.links = links
        case .archivedChanged(let archived):
            self.archived = archived
        case .checkinRestored(let book, let presence):
            if let book { checkin.book = book }
            if let presence { checkin.presence = presence }
        case .remoteDevice(let page, let device):
            checkin.remoteDevice(page, device: device)
        case .pruneRemoteDevices(let live):
            checkin.pruneRemoteDevices(live: live)
        case .shutdown:
            motion = nil
            viewerTimerArmed = false
            actions.append(.cancel(.motion))
            actions.append(.cancel(.viewers))
            actions.append(.cancel(.entrants))
            actions.append(.cancel(.claims))
        }
        switch event {
        case .joined, .left, .received, .hello, .keyChecked, .hostKeyChanged, .remoteViewers, .remoteEntropy, .linksChanged,
             .remoteDevice, .pruneRemoteDevices, .operatorIdentified, .operatorRevoked:
            // A page coming, going or saying hello (here or on another instance) changes no shared
            // part of the snapshot (a command does: `received` drops the snapshots for it; the
            // viewer count is refreshed with the viewers timer).
            break
        case .checkinJoin, .deviceLinked, .archivedChanged, .configurePrepared:
            // A join or a configure prepared off the loop changes the snapshot once stored; a linked
            // device only its own (see `device`).
            break
        case .command, .commandBy, .timerDue, .stored, .resynchronized, .shutdown, .resumeRolling, .resumeStopping, .entrantsStored, .continueTicks,
             .claim, .beaconFetched, .resumeSealed, .checkinRestored:
            snapshots = [:]
        }
        return actions
    }
}

/// The room's counters on `/metrics` (`DrawMetrics`).
public enum DrawMetric: Sendable {
    case rounds, commands, refusedCommands, storageFailures, authFailures
}
