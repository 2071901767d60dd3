import DrawRoomCore
import RedisStore
import DrawEngine
import JSON
import WebSocketCore

/// One draw's cluster role on one instance (docs/CLUSTER.md) as a state machine, as
/// `DrawRoomState` is the room's: it takes events (lease answers, the draw's channel messages,
/// forwarded commands and their answers, timers due, Redis up or down, local pages joining and
/// leaving, the owner room's announcements) with the time passed in, and returns actions (Redis
/// commands to run, publish, deliver to local pages, schedule a timer, answer a request). It
/// does no I/O and reads no clock: `ClusterDrawNode` is the thin shell on the cluster loop that
/// performs the actions and feeds their answers back; tests drive it with a manual clock.
///
/// Its role at any moment (`role`): a **follower** relays what the owner publishes to its pages
/// and forwards host commands to the owner; a **contender** is asking for the lease, or holds
/// it and is reading the round log before it opens the room (taking over); the **owner** holds
/// the lease and runs the draw's room; **stepping down** is the end (shut down, or halted by a
/// log that does not verify): it no longer competes.
package struct ClusterNodeState {
    /// Monotonic nanoseconds (the leases' clock, `OwnerLease.validUntil`) and the wall clock.
    package struct Moment: Sendable {
        package var nanoseconds: UInt64
        package var wallMilliseconds: Int64

        package init(nanoseconds: UInt64, wallMilliseconds: Int64) {
            self.nanoseconds = nanoseconds
            self.wallMilliseconds = wallMilliseconds
        }
    }

    package struct Settings: Sendable {
        var code: String
        var instanceID: String
        /// The cluster key (seals each commitment's seed; check-in presence codes).
        var key: [UInt8]
        var leaseTTL: Duration = .seconds(2)
        var renewInterval: Duration = .milliseconds(500)
        var pollInterval: Duration = .milliseconds(250)
        var safetyMargin: Duration = .milliseconds(150)
        var forwardTimeout: Duration = .seconds(10)
        var sealedStopWait: Duration = .zero
        /// How often an unheard forwarded command is published again.
        var resendInterval: Duration = .milliseconds(50)
        /// The program writing the records (a `takeover` commit names it, issue #47).
        var software: SoftwareIdentity?

        package init(code: String, instanceID: String, cluster: ClusterSettings) {
            self.code = code
            self.instanceID = instanceID
            key = cluster.key
            leaseTTL = cluster.leaseTTL
            renewInterval = cluster.renewInterval
            pollInterval = cluster.pollInterval
            safetyMargin = cluster.safetyMargin
            forwardTimeout = cluster.forwardTimeout
            sealedStopWait = cluster.sealedStopWait
            software = cluster.software
        }
    }

    package enum Role: Equatable, Sendable {
        case follower, contender, owner, steppingDown
    }

    package enum Timer: Hashable, Sendable {
        /// Renew (owner), try to take (others), report the viewer count.
        case lease
        /// Publish forwarded request `id` again (nobody heard it).
        case resend(UInt64)
        /// Forwarded request `id` got no answer in time.
        case forwardTimeout(UInt64)
        /// Ask the owner for the gathered pages' own check-in parts (+Checkin).
        case ownCheckin
    }

    /// The fan-out channel (`{d:CODE}:ch`) or the owner's command channel (`{d:CODE}:cmd`).
    package enum Channel: Sendable, Equatable {
        case fanout, commands
    }

    package enum RenewOutcome: Sendable {
        case renewed(OwnerLease)
        case fenced
        case failed
    }

    /// The takeover's read of the check-in book.
    package enum BookRead {
        case read(CheckinBook)
        /// A row or the settings cannot be read back (an alarm).
        case unreadable
        case failed(String)
    }

    /// What the old owner left beside the log (`MGET rolling snap tickSeq`).
    package struct RoundState: Sendable {
        package var rolling: String?
        package var snapshot: String?
        package var ticks: Int64

        package init(rolling: String?, snapshot: String?, ticks: Int64) {
            self.rolling = rolling
            self.snapshot = snapshot
            self.ticks = ticks
        }
    }

    package enum Event {
        /// Redis's connection became usable or stopped being so.
        case redis(up: Bool)
        /// Redis's command connection is a new one, after a loss: the primary may have changed,
        /// and with the old one a write that no replica had confirmed may be gone.
        case redisReconnected
        case timerDue(Timer)
        case leaseAcquired(LeaseAcquisition?)
        case leaseRenewed(token: Int64, RenewOutcome)
        case chainRead(token: Int64, Result<ClusterChain, any Error>)
        case bookRead(token: Int64, BookRead)
        /// nil: it could not be read.
        case roundStateRead(token: Int64, RoundState?)
        /// The takeover's commitment was stored (nil) or not (why).
        case takeoverCommitted(token: Int64, failure: String?)
        /// The owner's room may not announce: its lease (`token`) ran out.
        case leaseLapsed(token: Int64)
        /// A write of the owner's was refused or its outcome is unknown: it gives the draw up
        /// (`release`: and the lease, so that the next owner reads what landed).
        case gaveUp(token: Int64?, reason: String, release: Bool)
        /// A write landed: the round log ends at (`epoch`, `offset`).
        case logAdvanced(epoch: String, offset: String)
        case tickPublished(token: Int64, accepted: Bool)
        case shutdown

        // Pages here.
        case joined(UInt64, remote: String, device: String?)
        case left(UInt64)
        case received(String, from: UInt64)
        case keyChecked(UInt64, DrawRoomState.KeyVerdict)
        /// The draw's host key was replaced (`tombola host-link`).
        case hostKeyChanged

        // Requests: host commands and check-in asks, run on the owner's room.
        /// `forward`: the request as forwarded to the owner; `localFirst`: run on the room here
        /// even while Redis is down (a check-in ask).
        case submit(UInt64, forward: ClusterRequest, localFirst: Bool)
        /// A forwarded request's PUBLISH: how many listened (nil: it failed).
        case forwardPublished(UInt64, listeners: Int64?)
        /// The owner's answer to a forwarded request (this instance's reply channel).
        case replied(ClusterReply)

        // Channels.
        case channel(ClusterChannelMessage)
        case commandChannel([UInt8])
        /// Subscriptions changed: which of the draw's channels are live, and whether the
        /// subscriber reconnected (messages may have been lost).
        case subscriptions(fanoutLive: Bool, commandsLive: Bool, reconnected: Bool)
        /// `{d:CODE}:snap` as read (nil: none or unreadable); `resend`: to every page.
        case snapshotRead(ClusterSnapshot?, resend: Bool)
        /// A snapshot read for a REST caller: only taken if newer.
        case snapshotFetched(ClusterSnapshot)
        case logChecked(Result<ChainCursor, ClusterStore.CatchUpError>)

        // The owner's room.
        case announced(String, kind: DrawRoomState.BroadcastKind, stream: OutboundStream)
        case announcedTick(String, seq: Int64, stream: OutboundStream)
        /// One of the room's events is done.
        case settled
    }

    /// What the shell hands the owner's room.
    package enum RoomInput {
        case event(DrawRoomState.Event)
        case join(UInt64, remote: String, device: String?)
        case leave(UInt64)
        case received(String, from: UInt64)
        /// A page's `hello` as this instance read it while it followed (a takeover).
        case hello(UInt64, entropy: Contribution, client: String?)
        case keyChecked(UInt64, DrawRoomState.KeyVerdict)
        case linkDevice(String, device: String?)
        case pruneDevices(live: Set<String>)
    }

    package enum LogLine: Equatable {
        case owner(token: Int64, records: Int)
        case stepDown(token: Int64, reason: String)
        case error(String)
    }

    package enum Action {
        // Redis.
        case acquireLease
        case renewLease(OwnerLease)
        /// `finishesShutdown`: the shell's shutdown is done once it is released.
        case releaseLease(OwnerLease, finishesShutdown: Bool)
        case readChain(token: Int64)
        case readBook(token: Int64)
        case readRoundState(token: Int64)
        /// The takeover's commitment, appended with the lease; answer `.takeoverCommitted`.
        case appendTakeover(RecordBatch, token: Int64)
        /// On the fan-out channel.
        case publish(ClusterChannelMessage)
        /// A tick with its seq, fenced; answer `.tickPublished`.
        case publishTick(seq: Int64, ClusterChannelMessage, lease: OwnerLease)
        /// The room's public state as a snapshot (SET `{d:CODE}:snap`, then published).
        case publishSnapshot(token: Int64, seq: Int64, epoch: String, offset: String, announcesOwner: Bool)
        /// A rolling round's frozen inputs beside the log, fenced.
        case keepRolling(OwnerLease)
        /// On the owner's command channel; with a request id, answer `.forwardPublished`.
        case publishCommand(ClusterCommandMessage, request: UInt64?)
        /// Owner: on instance `to`'s reply channel.
        case publishReply(ClusterReply, to: String)
        case readSnapshot(resend: Bool)
        case checkLog(ChainCursor)
        case subscribe(Channel)
        case unsubscribe(Channel)
        case finishShutdown

        // Pages here.
        case deliver(String, stream: OutboundStream)
        case send(String, to: UInt64)
        /// Ask the owner for these pages' own check-in parts (`CheckinQuery.pages(asks)`, one
        /// ask per page) and send each page the snapshot with its part.
        case askOwnCheckin([UInt64], [CheckinQuery.PageAsk])
        /// The owner revealed check-in winners: this instance's hosts get their presence.
        case relayWinnerPresence
        /// Check `key` (`HostKeyHash.verdict`) and answer `.keyChecked`.
        case checkKey(String, remote: String, member: UInt64)
        /// A host page's command: submit it, its answer to the page.
        case pageCommand(HostCommand, seq: Int64?, client: String?, from: UInt64)
        case countAuthFailure

        // The owner's room.
        /// Open the room on `draw` (ticks above `ticksAfter`; the check-in `book` read at the takeover).
        case openRoom(Draw, ticksAfter: Int64, book: CheckinBook?)
        case closeRoom
        case toRoom(RoomInput)
        /// Run request `id` on the room here.
        case runOnRoom(UInt64)
        /// Owner: request `id` of instance `from` (a host command or a check-in ask); its answer
        /// goes back as `publishReply`.
        case inbound(ClusterRequest, from: String, id: UInt64)

        case answer(UInt64, Result<CommandReply, CommandFailure>)
        case schedule(Timer, at: UInt64)
        case cancel(Timer)
        case log(LogLine)
        case audit(AuditEntry)
    }

    /// A request forwarded to the owner, waiting for its answer.
    struct Forwarded {
        let message: ClusterCommandMessage
        /// The newest owner's token known when it was (last) sent.
        var token: Int64
        /// Whether an owner heard it (a PUBLISH nobody hears is sent again).
        var delivered = false
    }

    /// A takeover under way: what was read so far.
    struct Takeover {
        var chain: ClusterChain?
        var book: CheckinBook?
        var draw: Draw?
        var resumed = false
    }

    package let settings: Settings

    // Pages here (the room's member model; `device`: the check-in cookie's hash).
    package var members: [UInt64: DrawRoomState.Member] = [:]

    // The lease.
    package var redisUp = false
    package var lease: OwnerLease?
    var roomOpen = false
    var leaseBusy = false
    var halted = false
    var stopped = false
    var takeover: Takeover?
    var lastCountReport: UInt64 = 0
    /// The time of the event being handled.
    var now = Moment(nanoseconds: 0, wallMilliseconds: 0)

    // Owner: what it published and stored.
    var publishedSeq: Int64 = 0
    var reliableSinceSettle = false
    var logEpoch = ""
    var logOffset = ""
    var remoteCounts: [String: (count: Int, at: UInt64)] = [:]
    /// A new owner announces itself (`R`) once it hears its command channel.
    var announcePending = false
    var commandsLive = false
    /// Requests that arrived between taking the lease and opening the room.
    var waitingForRoom: [(id: UInt64, forward: ClusterRequest, localFirst: Bool)] = []

    // Follower: the owner's view.
    package var subscribed = false
    var fanoutLive = false
    /// The snapshot read a new subscription waits for (its channel must be live first), and
    /// whether it goes to every page (`true`) or only to those waiting.
    var snapshotReadPending: Bool?
    /// Pages may have missed a message published before the channel was live (and after the
    /// snapshot they got): the next snapshot the channel brings goes to every page.
    var pagesMayLag = false
    package var snapshot: ClusterSnapshot? {
        didSet { snapshotSummary = snapshot.map { ClusterSnapshotSummary(stateText: $0.text) } ?? ClusterSnapshotSummary() }
    }
    /// The latest snapshot's state, read once.
    package private(set) var snapshotSummary = ClusterSnapshotSummary()
    var highestToken: Int64 = 0
    var lastTick: String?
    var lastViewers: String?
    var waitingForSnapshot: [UInt64] = []
    /// Pages waiting for their own check-in part (asked for together, +Checkin).
    var ownCheckinPending: [UInt64] = []
    /// Snapshot reads sent and not answered yet.
    var snapshotReads = 0
    var cursor = ChainCursor()
    var catchingUp = false
    var forwarded: [UInt64: Forwarded] = [:]

    package init(settings: Settings) {
        self.settings = settings
    }

    var role: Role {
        if stopped || halted { return .steppingDown }
        if lease != nil { return roomOpen ? .owner : .contender }
        return leaseBusy ? .contender : .follower
    }

    /// Whether the owner's room may announce at `now`: its lease holds, with the margin to spare.
    package func mayAnnounce(at now: UInt64) -> Bool {
        guard let lease else { return false }
        return lease.isValid(at: now, margin: settings.safetyMargin)
    }

    package static let roleHost = JSONValue.object(["type": .string("role"), "role": .string("host")]).canonicalString
    package static let roleViewer = JSONValue.object(["type": .string("role"), "role": .string("viewer")]).canonicalString

    package mutating func handle(_ event: Event, at now: Moment, using random: inout some RandomNumberGenerator) -> [Action] {
        process(event, at: now, using: &random)
    }

    /// `handle` with the system generator, the shell's own: specialized here (as `DrawRoomState`'s).
    package mutating func handle(_ event: Event, at now: Moment, using random: inout SystemRandomNumberGenerator) -> [Action] {
        process(event, at: now, using: &random)
    }

    mutating func process(_ event: Event, at now: Moment, using random: inout some RandomNumberGenerator) -> [Action] {
        var actions: [Action] = []
        self.now = now
        switch event {
        case .redis(let up):
            redisUp = up
        case .redisReconnected:
            // The owner's snapshot (`{d:CODE}:snap`) is written without waiting for its WAIT: a
            // failover may have lost the last one (the reveal, say), and pages joining other
            // instances would be shown the phase before it. Stored and published again.
            if roomOpen, lease != nil { publishSnapshot(announcesOwner: false, &actions) }
        case .timerDue(.lease):
            tick(at: now, &actions)
        case .timerDue(.ownCheckin):
            ownCheckinDue(&actions)
        case .timerDue(.resend(let id)):
            publishForwarded(id, &actions)
        case .timerDue(.forwardTimeout(let id)):
            if forwarded.removeValue(forKey: id) != nil {
                actions.append(.cancel(.resend(id)))
                actions.append(.answer(id, .failure(CommandFailure(code: "cluster_unavailable"))))
            }
        case .leaseAcquired(let answer):
            leaseBusy = false
            guard case .acquired(let acquired)? = answer, !stopped else { break }
            takeOver(acquired, &actions)
            // The lease counts from when the acquire was sent: if its answer was slow, little is left
            // by that count, so renew now rather than at the next tick.
            if !acquired.isValid(at: now.nanoseconds, margin: settings.renewInterval + settings.safetyMargin),
               lease?.token == acquired.token {
                actions.append(.cancel(.lease))
                tick(at: now, &actions)
            }
        case .leaseRenewed(let token, let outcome):
            leaseBusy = false
            guard lease?.token == token else { break }
            switch outcome {
            case .renewed(let renewed): lease = renewed
            case .fenced: stepDown("fenced: another instance holds the lease", &actions)
            case .failed: break  // tried again next time; the lease's validity runs out by itself
            }
        case .chainRead(let token, let result):
            chainRead(token, result, &actions)
        case .bookRead(let token, let read):
            bookRead(token, read, &actions)
        case .roundStateRead(let token, let read):
            roundStateRead(token, read, at: now, using: &random, &actions)
        case .takeoverCommitted(let token, let failure):
            guard lease?.token == token, let draw = takeover?.draw else { break }
            if let failure {
                actions.append(.log(.error("cluster: committing after the takeover failed: \(failure)")))
                stepDown("commit failed", announce: false, &actions)
            } else {
                open(draw, ticksAfter: takeoverTicks, carrying: nil, at: now, &actions)
            }
        case .leaseLapsed(let token):
            if lease?.token == token { stepDown("its lease ran out", &actions) }
        case .gaveUp(let token, let reason, let release):
            guard let held = lease, token == nil || token == held.token else { break }
            stepDown(reason, &actions)
            if release { actions.append(.releaseLease(held, finishesShutdown: false)) }
        case .logAdvanced(let epoch, let offset):
            if !offset.isEmpty { logOffset = offset }
            logEpoch = epoch
        case .tickPublished(let token, let accepted):
            if !accepted, lease?.token == token { stepDown("fenced: its tick was refused", &actions) }
        case .shutdown:
            stopped = true
            actions.append(.cancel(.lease))
            guard let held = lease else {
                actions.append(.finishShutdown)
                break
            }
            stepDown("shutting down", announce: false, &actions)
            actions.append(.releaseLease(held, finishesShutdown: true))
        case .joined(let id, let remote, let device):
            joined(id, remote: remote, device: device, &actions)
        case .left(let id):
            left(id, &actions)
        case .received(let text, let id):
            received(text, from: id, &actions)
        case .keyChecked(let id, let verdict):
            keyChecked(id, verdict, &actions)
        case .hostKeyChanged:
            for (id, member) in members where member.isHost {
                members[id]?.isHost = false
                if !roomOpen { actions.append(.send(Self.roleViewer, to: id)) }
            }
        case .submit(let id, let forward, let localFirst):
            submit(id, forward: forward, localFirst: localFirst, at: now, &actions)
        case .forwardPublished(let id, let listeners):
            forwardPublished(id, listeners: listeners, at: now, &actions)
        case .replied(let reply):
            replied(reply, &actions)
        case .channel(let message):
            fanout(message, &actions)
        case .commandChannel(let payload):
            inbound(payload, at: now, &actions)
        case .subscriptions(let fanout, let commands, let reconnected):
            fanoutLive = fanout
            commandsLive = commands
            subscriptionsReady(reconnected: reconnected, &actions)
        case .snapshotRead(let read, let resend):
            snapshotReads = max(0, snapshotReads - 1)
            if let read, accept(read, &actions), resend {
                for id in members.keys.sorted() { sendSnapshot(to: id, &actions) }
            }
            let waiting = waitingForSnapshot
            waitingForSnapshot = []
            for id in waiting { sendSnapshot(to: id, &actions) }
        case .snapshotFetched(let read):
            accept(read, &actions)
        case .logChecked(let result):
            catchingUp = false
            switch result {
            case .success(let advanced):
                cursor = advanced
            case .failure(.broken(let broken)):
                actions.append(.log(.error("cluster ALARM: the round log of draw \(settings.code) changed under this instance: \(broken)")))
                cursor = ChainCursor()
            case .failure(.store):
                break
            }
        case .announced(let text, let kind, let stream):
            guard let lease else { break }
            let wire: ClusterChannelMessage.Kind
            switch (kind, stream) {
            case (.viewers, _): wire = .viewers
            case (_, .latestValue): wire = .latest
            case (.cleared, _): wire = .cleared
            case (.checkinWinners, _): wire = .checkinWinners
            default: wire = .reliable
            }
            if stream == .reliable { reliableSinceSettle = true }
            if kind == .phase(.rolling) { actions.append(.keepRolling(lease)) }
            actions.append(.publish(.frame(wire, instance: settings.instanceID, token: lease.token, body: text)))
        case .announcedTick(let text, let seq, let stream):
            // A tick goes out with the draw's highest tick seq, fenced in one script: a new owner's ticks
            // continue above every seq announced, and a stale owner's tick reaches no other instance.
            guard let lease else { break }
            if stream == .reliable { reliableSinceSettle = true }
            let message = ClusterChannelMessage.frame(stream == .latestValue ? .tick : .reliable, instance: settings.instanceID,
                                                      token: lease.token, body: text)
            actions.append(.publishTick(seq: seq, message, lease: lease))
        case .settled:
            guard reliableSinceSettle, roomOpen else { break }
            reliableSinceSettle = false
            publishSnapshot(announcesOwner: false, &actions)
        }
        return actions
    }

    // MARK: The lease

    /// Every `pollInterval`: the owner renews (and steps down when it cannot any more); the
    /// others try to take the lease; everyone reports its viewer count once a second.
    mutating func tick(at now: Moment, _ actions: inout [Action]) {
        guard !stopped else { return }
        let interval = lease == nil ? settings.pollInterval : settings.renewInterval
        actions.append(.schedule(.lease, at: now.nanoseconds &+ UInt64(interval.nanosecondCount)))
        readSnapshotAgainIfWaiting(&actions)
        if now.nanoseconds &- lastCountReport >= 1_000_000_000 {
            lastCountReport = now.nanoseconds
            // Followers report their pages; the owner drops the counts of instances gone quiet.
            if roomOpen { actions.append(.toRoom(.event(.remoteViewers(remoteViewerSum(at: now, &actions))))) } else { reportCount(&actions) }
        }
        if halted || leaseBusy { return }
        if let lease {
            guard lease.isValid(at: now.nanoseconds, margin: settings.safetyMargin) else {
                return stepDown("its lease ran out before it could renew it (Redis unreachable?)", &actions)
            }
            leaseBusy = true
            actions.append(.renewLease(lease))
        } else {
            // Only on a live connection: a lease counts from when its acquire was queued, so one
            // that waited for Redis to come back would start out nearly spent.
            guard redisUp else { return }
            leaseBusy = true
            actions.append(.acquireLease)
        }
    }

    mutating func reportCount(_ actions: inout [Action]) {
        let count = members.count
        guard count > 0 || subscribed else { return }
        actions.append(.publishCommand(.viewers(from: settings.instanceID, count: Int64(count)), request: nil))
    }

    // MARK: Taking over

    /// This instance took the lease: rebuild the draw from the round log, check it, take up the
    /// committed seed (or commit a new one), and open the room. The lease is renewed meanwhile
    /// (`tick`), however long reading the log takes.
    mutating func takeOver(_ acquired: OwnerLease, _ actions: inout [Action]) {
        lease = acquired
        takeover = Takeover()
        actions.append(.readChain(token: acquired.token))
    }

    mutating func chainRead(_ token: Int64, _ result: Result<ClusterChain, any Error>, _ actions: inout [Action]) {
        guard lease?.token == token, !stopped else { return }
        switch result {
        case .failure(let error):
            actions.append(.log(.error("cluster: instance \(settings.instanceID) took the lease (token \(token)) but cannot read the log: \(error)")))
            stepDown("cannot read the round log", announce: false, &actions)
        case .success(let chain):
            takeover?.chain = chain
            actions.append(.readBook(token: token))
        }
    }

    mutating func bookRead(_ token: Int64, _ read: BookRead, _ actions: inout [Action]) {
        guard let held = lease, held.token == token, !stopped, let chain = takeover?.chain else { return }
        switch read {
        case .failed(let error):
            actions.append(.log(.error("cluster: instance \(settings.instanceID) took the lease (token \(token)) but cannot read the check-in entrants: \(error)")))
            stepDown("cannot read the check-in entrants", announce: false, &actions)
        case .unreadable:
            actions.append(.log(.error("cluster ALARM: an entrant row or the check-in settings of draw \(settings.code) cannot be read back; this instance will not act as its owner")))
            halted = true
            stepDown("unreadable entrants", announce: false, &actions)
            actions.append(.releaseLease(held, finishesShutdown: false))
        case .read(let book):
            takeover?.book = book
            rebuild(from: chain, lease: held, &actions)
        }
    }

    mutating func rebuild(from chain: ClusterChain, lease held: OwnerLease, _ actions: inout [Action]) {
        let code = settings.code
        let records = chain.records
        // A recomputed result that disagrees with a stored one is an alarm, never an overwrite.
        if !records.isEmpty {
            let report = RoundVerifier.verify(records: records.map(\.json), code: code)
            if !report.passed {
                let problem = report.chainProblem ?? report.checks.first { !$0.ok }?.line ?? "?"
                actions.append(.log(.error("cluster ALARM: the round log of draw \(code) does not verify (\(problem)); this instance will not act as its owner")))
                halted = true
                stepDown("the log does not verify", announce: false, &actions)
                actions.append(.releaseLease(held, finishesShutdown: false))
                return
            }
        }
        guard let config = (try? JSONValue.parse(chain.configJSON)).flatMap({ try? DrawConfig(json: $0) }),
              var draw = try? Draw(config: config, restoring: records) else {
            actions.append(.log(.error("cluster ALARM: the settings or records of draw \(code) cannot be read back; this instance will not act as its owner")))
            halted = true
            stepDown("unreadable log", announce: false, &actions)
            return
        }
        // A beacon-sealed round waiting for its drand round carries its seed in its lock.
        var resumed = draw.sealing != nil
        if !resumed, let (seal, commitment) = chain.pendingSeal,
           let seed = SeedSeal.open(seal, key: settings.key, code: code, commitment: commitment) {
            do {
                try draw.resumeCommitment(seed)
                resumed = true
            } catch {
                actions.append(.log(.error("cluster ALARM: the sealed seed of draw \(code) does not match its last commitment; committing a new one")))
            }
        }
        logEpoch = chain.epoch
        logOffset = chain.offset
        takeover?.draw = draw
        takeover?.resumed = resumed
        // What the old owner left beside the log: a round rolling or a Stop not yet revealed (the new
        // owner carries either on), and the highest tick seq it announced (ticks continue above it).
        actions.append(.readRoundState(token: held.token))
    }

    var takeoverTicks: Int64 = 0

    mutating func roundStateRead(_ token: Int64, _ read: RoundState?, at now: Moment,
                                         using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        guard lease?.token == token, !stopped, let rebuilt = takeover?.draw, let resumed = takeover?.resumed else { return }
        guard let read else {
            actions.append(.log(.error("cluster: instance \(settings.instanceID) cannot read the round state of draw \(settings.code)")))
            return stepDown("cannot read the round state", announce: false, &actions)
        }
        var draw = rebuilt
        takeoverTicks = read.ticks
        if resumed {
            // Issue #32: a round rolling goes on; a Stop stored but not revealed is revealed.
            let carried = ClusterResume.resume(&draw, rolling: read.rolling, snapshot: read.snapshot, now: now.wallMilliseconds)
            return open(draw, ticksAfter: read.ticks, carrying: carried, at: now, &actions)
        }
        // No seed could be taken up: commit a new one (a `takeover` commit), then open the room.
        if let software = settings.software { draw.software = software }
        guard let record = try? draw.prepareCommitment(seed: .random(using: &random), at: now.wallMilliseconds) else {
            return stepDown("cannot commit", announce: false, &actions)
        }
        takeover?.draw = draw
        actions.append(.appendTakeover(RecordBatch(command: "takeover", records: [record], committedSeed: draw.committedSeed),
                                       token: token))
    }

    /// Opens the room on the rebuilt draw: its ticks numbered above `ticks`, and `carried` (a
    /// round rolling or stopping when the old owner stopped) carried on live.
    mutating func open(_ draw: Draw, ticksAfter ticks: Int64, carrying carried: DrawRoomState.Event?,
                               at now: Moment, _ actions: inout [Action]) {
        guard let held = lease else { return }
        let book = takeover?.book
        takeover = nil
        roomOpen = true
        actions.append(.openRoom(draw, ticksAfter: ticks, book: book))
        unsubscribe(&actions)
        commandsLive = false
        actions.append(.subscribe(.commands))
        for id in members.keys.sorted() {
            guard let member = members[id] else { continue }
            actions.append(.toRoom(.join(id, remote: member.remote, device: member.device)))
            if member.isHost { actions.append(.toRoom(.keyChecked(id, .accepted))) }
            if let entropy = member.entropy { actions.append(.toRoom(.hello(id, entropy: entropy, client: member.client))) }
        }
        actions.append(.toRoom(.event(.remoteViewers(remoteViewerSum(at: now, &actions)))))
        actions.append(.log(.owner(token: held.token, records: draw.recordCount)))
        actions.append(.audit(AuditEntry(actor: "system", action: "takeover",
                                         detail: .object(["token": .int(held.token), "instance": .string(settings.instanceID)]))))
        announcePending = true
        announceOwnerIfLive(&actions)
        if let carried { actions.append(.toRoom(.event(carried))) }
        let waiting = waitingForRoom
        waitingForRoom = []
        for request in waiting { actions.append(.runOnRoom(request.id)) }
    }

    // MARK: Stepping down

    /// Stops acting as the owner at once: no more ticks, writes or announcements.
    mutating func stepDown(_ reason: String, announce: Bool = true, _ actions: inout [Action]) {
        guard let held = lease else { return }
        lease = nil
        takeover = nil
        announcePending = false
        if roomOpen {
            roomOpen = false
            commandsLive = false
            actions.append(.closeRoom)
            actions.append(.unsubscribe(.commands))
        }
        remoteCounts = [:]
        if announce { actions.append(.log(.stepDown(token: held.token, reason: reason))) }
        // Forwarded now, to whoever owns the draw next.
        let waiting = waitingForRoom
        waitingForRoom = []
        for request in waiting { submit(request.id, forward: request.forward, localFirst: request.localFirst, at: now, &actions) }
        // Its pages follow the next owner from here, starting with its latest snapshot.
        if !members.isEmpty { subscribeIfNeeded(resend: true, &actions) }
    }

    // MARK: Announcing (owner)

    mutating func publishSnapshot(announcesOwner: Bool, _ actions: inout [Action]) {
        guard let lease else { return }
        publishedSeq += 1
        actions.append(.publishSnapshot(token: lease.token, seq: publishedSeq, epoch: logEpoch, offset: logOffset,
                                        announcesOwner: announcesOwner))
    }

    /// A new owner's `R` goes out once its command channel is live, so that what the other
    /// instances send in answer (their pages' entropy, commands) reaches it.
    mutating func announceOwnerIfLive(_ actions: inout [Action]) {
        guard announcePending, roomOpen, commandsLive else { return }
        announcePending = false
        publishSnapshot(announcesOwner: true, &actions)
    }

    /// The viewer counts of the other instances heard from in the last 3.5 s; the room forgets
    /// the devices of pages on the others.
    mutating func remoteViewerSum(at now: Moment, _ actions: inout [Action]) -> Int {
        remoteCounts = remoteCounts.filter { now.nanoseconds &- $0.value.at < 3_500_000_000 }
        actions.append(.toRoom(.pruneDevices(live: Set(remoteCounts.keys))))
        return remoteCounts.values.reduce(0) { $0 + $1.count }
    }

    /// Notes that instance `from` reported `count` pages at `now` (a device report: a sign of life).
    mutating func heardFrom(_ from: String, count: Int?, at now: Moment) {
        if let count {
            remoteCounts[from] = (count, now.nanoseconds)
        } else if remoteCounts[from] == nil {
            remoteCounts[from] = (0, now.nanoseconds)
        }
    }
}

extension Duration {
    /// Whole nanoseconds (non-negative durations).
    var nanosecondCount: Int64 {
        let (seconds, attoseconds) = components
        return max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
