import DrawRoomCore
import RedisStore
import DrawEngine
import JSON
import RoomTestSupport
import Testing
@testable import ClusterCore
import WebSocketCore

/// Cluster mode's per-draw state machine without Redis, sockets or sleeps: a few
/// `ClusterNodeState`s (one per instance) and a small model of what Redis does for them (the
/// lease with its expiry and fencing token, the round log, Pub/Sub with its listener counts),
/// all on one manual clock. `pause` stops an instance's clock-driven events and its inbox (a
/// stopped process: what was sent to it waits); `kill` also drops its subscriptions.
struct ClusterSim {
    struct Node {
        var state: ClusterNodeState
        var timers: [ClusterNodeState.Timer: UInt64] = [:]
        var fanout = false
        var commands = false
        var paused = false
        var killed = false
        /// Everything it did, in order, with the time.
        var actions: [(at: UInt64, action: ClusterNodeState.Action)] = []
        /// Answers to its requests (request id → outcomes, in order).
        var answers: [UInt64: [Result<CommandReply, CommandFailure>]] = [:]
        var nextRequest: UInt64 = 0
    }

    static let ttl = Duration.seconds(2)
    var nodes: [Node] = []
    var clock: UInt64 = 50_000_000_000
    var wall: Int64 = 1_764_000_000_000
    var random = SeededGenerator(seed: 11)
    var redisUp = true
    /// The lease key: token, holder, expiry (Redis's own clock: the same one here).
    var lease: (token: Int64, owner: String, expires: UInt64)?
    var lastToken: Int64 = 0
    var records: [DrawRecord] = []
    var snapshotKey: ClusterSnapshot?
    /// Events on their way (answers, channel messages), in order.
    var inbox: [(node: Int, event: ClusterNodeState.Event)] = []
    let settings: ClusterSettings

    init(instances: Int) {
        settings = ClusterSettings(endpoint: RedisEndpoint(host: "127.0.0.1"), key: Array(repeating: 9, count: 32))
        for index in 0..<instances {
            nodes.append(Node(state: ClusterNodeState(settings: .init(code: "ROOM", instanceID: "i\(index)", cluster: settings))))
        }
        for index in nodes.indices { send(index, .redis(up: true)) }
    }

    var now: ClusterNodeState.Moment { .init(nanoseconds: clock, wallMilliseconds: wall) }

    /// Hands `event` to instance `index` now (queued while it is paused).
    mutating func send(_ index: Int, _ event: ClusterNodeState.Event) {
        guard !nodes[index].killed else { return }
        guard !nodes[index].paused else { return inbox.append((index, event)) }
        let actions = nodes[index].state.handle(event, at: now, using: &random)
        for action in actions { perform(index, action) }
    }

    /// Delivers what is on its way to running instances.
    mutating func drain() {
        var rounds = 0
        while let position = inbox.firstIndex(where: { !nodes[$0.node].paused }), rounds < 100_000 {
            rounds += 1
            let (index, event) = inbox.remove(at: position)
            send(index, event)
        }
    }

    /// Moves the clock on in 10 ms steps, firing the timers of running instances.
    mutating func advance(_ duration: Duration, until done: ((ClusterSim) -> Bool)? = nil) {
        let end = clock + UInt64(duration.nanosecondCount)
        while clock < end {
            clock += 10_000_000
            wall += 10
            for index in nodes.indices where !nodes[index].paused && !nodes[index].killed {
                let due = nodes[index].timers.filter { $0.value <= clock }.sorted { $0.value < $1.value }
                for (timer, _) in due {
                    nodes[index].timers[timer] = nil
                    send(index, .timerDue(timer))
                }
            }
            drain()
            if let done, done(self) { return }
        }
    }

    mutating func pause(_ index: Int) { nodes[index].paused = true }

    mutating func resume(_ index: Int) {
        nodes[index].paused = false
        // Its clock jumped: every timer due fires now, as a loop does after a stop.
        let due = nodes[index].timers.filter { $0.value <= clock }.sorted { $0.value < $1.value }
        for (timer, _) in due {
            nodes[index].timers[timer] = nil
            send(index, .timerDue(timer))
        }
        drain()
    }

    mutating func kill(_ index: Int) {
        nodes[index].killed = true
        nodes[index].fanout = false
        nodes[index].commands = false
    }

    mutating func setRedis(up: Bool) {
        redisUp = up
        for index in nodes.indices { send(index, .redis(up: up)) }
        if up {
            // The subscriber's new connection: every subscription live again, messages maybe lost.
            for index in nodes.indices {
                send(index, .subscriptions(fanoutLive: nodes[index].fanout, commandsLive: nodes[index].commands, reconnected: true))
            }
        }
        drain()
    }

    /// The instance that owns the draw (its room open), if one does.
    var owner: Int? { nodes.indices.first { !nodes[$0].killed && !nodes[$0].paused && nodes[$0].state.role == .owner } }

    /// A point in the record of actions: moves the clock on by a nanosecond, so `actions(since:)`
    /// gives what came after it.
    mutating func mark() -> UInt64 {
        clock += 1
        return clock
    }

    /// A page joins instance `index`.
    mutating func join(_ index: Int, page: UInt64, host: Bool = false) {
        send(index, .joined(page, remote: "10.0.0.\(page)", device: nil))
        if host { send(index, .received(#"{"type":"auth","key":"host-key-0123456789"}"#, from: page)) }
        drain()
    }

    /// The owner's room announces, as `DrawRoom` does: only if the node says it may.
    mutating func announce(_ index: Int, _ text: String, stream: OutboundStream = .reliable) {
        guard nodes[index].state.mayAnnounce(at: clock) else {
            if let token = nodes[index].state.lease?.token { send(index, .leaseLapsed(token: token)) }
            return
        }
        nodes[index].actions.append((clock, .deliver(text, stream: stream)))
        send(index, .announced(text, kind: .other, stream: stream))
        send(index, .settled)
        drain()
    }

    mutating func announceTick(_ index: Int, seq: Int64) {
        guard nodes[index].state.mayAnnounce(at: clock) else {
            if let token = nodes[index].state.lease?.token { send(index, .leaseLapsed(token: token)) }
            return
        }
        send(index, .announcedTick(#"{"type":"tick","seq":\#(seq)}"#, seq: seq, stream: .latestValue))
        drain()
    }

    // MARK: What Redis and the shell do

    private mutating func perform(_ index: Int, _ action: ClusterNodeState.Action) {
        nodes[index].actions.append((clock, action))
        let instance = nodes[index].state.settings.instanceID
        switch action {
        case .acquireLease:
            guard redisUp else { return inbox.append((index, .leaseAcquired(nil))) }
            if let held = lease, held.expires > clock {
                return inbox.append((index, .leaseAcquired(.held(by: "\(held.token):\(held.owner)"))))
            }
            lastToken += 1
            lease = (lastToken, instance, clock + UInt64(Self.ttl.nanosecondCount))
            inbox.append((index, .leaseAcquired(.acquired(OwnerLease(draw: "ROOM", owner: instance, token: lastToken,
                                                                      validUntil: clock + UInt64(Self.ttl.nanosecondCount))))))
        case .renewLease(let held):
            guard redisUp else { return inbox.append((index, .leaseRenewed(token: held.token, .failed))) }
            guard let current = lease, current.token == held.token, current.expires > clock else {
                return inbox.append((index, .leaseRenewed(token: held.token, .fenced)))
            }
            lease?.expires = clock + UInt64(Self.ttl.nanosecondCount)
            var renewed = held
            renewed.validUntil = clock + UInt64(Self.ttl.nanosecondCount)
            inbox.append((index, .leaseRenewed(token: held.token, .renewed(renewed))))
        case .releaseLease(let held, _):
            if redisUp, lease?.token == held.token { lease = nil }
        case .readChain(let token):
            let chain = ClusterChain(configJSON: DrawConfig.standard.json.canonicalString, records: records, pendingSeal: nil,
                                     epoch: "e1", offset: "\(records.count)-0")
            inbox.append((index, .chainRead(token: token, redisUp ? .success(chain) : .failure(ClusterError.unavailable(.closed)))))
        case .readBook(let token):
            inbox.append((index, .bookRead(token: token, redisUp ? .read(CheckinBook(settings: CheckinSettings(), entries: [])) : .failed("down"))))
        case .readRoundState(let token):
            inbox.append((index, .roundStateRead(token: token, redisUp ? .init(rolling: nil, snapshot: nil, ticks: 0) : nil)))
        case .appendTakeover(let batch, let token):
            // Fenced like every write: only the lease's holder appends.
            guard redisUp, let current = lease, current.token == token, current.expires > clock else {
                return inbox.append((index, .takeoverCommitted(token: token, failure: "fenced")))
            }
            records += batch.records
            inbox.append((index, .takeoverCommitted(token: token, failure: nil)))
        case .publish(let message):
            publish(message, from: index)
        case .publishTick(_, let message, let held):
            guard redisUp else { return }
            guard let current = lease, current.token == held.token else {
                return inbox.append((index, .tickPublished(token: held.token, accepted: false)))
            }
            publish(message, from: index)
        case .publishSnapshot(let token, let seq, let epoch, let offset, let announcesOwner):
            let snapshot = ClusterSnapshot(token: token, seq: seq, epoch: epoch, offset: offset,
                                           text: #"{"type":"state","owner":"\#(instance)","seq":\#(seq)}"#)
            guard redisUp else { return }
            // Stored fenced, as the shell does (`setIfOwner`): only under the current lease.
            if let current = lease, current.token == token, current.expires > clock { snapshotKey = snapshot }
            publish(.snapshot(snapshot, instance: instance, announcesOwner: announcesOwner), from: index)
        case .publishCommand(let message, let request):
            guard redisUp else {
                if let request { inbox.append((index, .forwardPublished(request, listeners: nil))) }
                return
            }
            let listeners = nodes.indices.filter { nodes[$0].commands && !nodes[$0].killed }
            for listener in listeners { inbox.append((listener, .commandChannel(message.encoded))) }
            if let request { inbox.append((index, .forwardPublished(request, listeners: Int64(listeners.count)))) }
        case .readSnapshot(let resend):
            inbox.append((index, .snapshotRead(redisUp ? snapshotKey : nil, resend: resend)))
        case .checkLog(let cursor):
            inbox.append((index, .logChecked(.success(cursor))))
        case .subscribe(let channel):
            if channel == .fanout { nodes[index].fanout = true } else { nodes[index].commands = true }
            // The subscription's confirmation arrives (if Redis is up).
            if redisUp {
                inbox.append((index, .subscriptions(fanoutLive: nodes[index].fanout, commandsLive: nodes[index].commands, reconnected: false)))
            }
        case .unsubscribe(let channel):
            if channel == .fanout { nodes[index].fanout = false } else { nodes[index].commands = false }
        case .checkKey(let key, _, let member):
            inbox.append((index, .keyChecked(member, key == "host-key-0123456789" ? .accepted : .refused)))
        case .pageCommand(let command, let seq, let client, _):
            // The shell: a request with the command as forwarded.
            nodes[index].nextRequest += 1
            let forward = ClusterRequest.command(command, seq: seq, client: client, awaitReveal: false)
            send(index, .submit(nodes[index].nextRequest, forward: forward, localFirst: false))
        case .inbound(_, let from, let id):
            // The owner's room runs it and answers on the forwarder's reply channel.
            let ack: JSONValue = .object(["type": .string("ack"), "by": .string(instance)])
            perform(index, .publishReply(ClusterReply(draw: "ROOM", id: id, outcome: .success(CommandReply(ack: ack))), to: from))
        case .publishReply(let reply, let to):
            // Bytes on the reply channel, read back as the runtime reads them.
            guard redisUp, let forwarder = nodes.indices.first(where: { nodes[$0].state.settings.instanceID == to }),
                  let heard = try? ClusterReply.decode(reply.encoded) else { return }
            inbox.append((forwarder, .replied(heard)))
        case .runOnRoom(let id):
            nodes[index].answers[id, default: []].append(.success(CommandReply(ack: .object(["by": .string(instance)]))))
        case .answer(let id, let outcome):
            nodes[index].answers[id, default: []].append(outcome)
        case .schedule(let timer, let at):
            nodes[index].timers[timer] = at
        case .cancel(let timer):
            nodes[index].timers[timer] = nil
        case .finishShutdown, .keepRolling, .deliver, .send, .askOwnCheckin, .relayWinnerPresence, .countAuthFailure,
             .openRoom, .closeRoom, .toRoom, .log, .audit:
            break
        }
    }

    private mutating func publish(_ message: ClusterChannelMessage, from index: Int) {
        guard redisUp else { return }
        for listener in nodes.indices where listener != index && nodes[listener].fanout && !nodes[listener].killed {
            inbox.append((listener, .channel(message)))
        }
    }

    /// Starts every instance's lease timer (instance 0 first: it takes the lease) and lets them settle.
    mutating func start() {
        for index in nodes.indices { send(index, .timerDue(.lease)) }
        drain()
        advance(.milliseconds(100))
    }

    /// What instance `index` did from `since` on.
    func actions(_ index: Int, since: UInt64 = 0) -> [ClusterNodeState.Action] {
        nodes[index].actions.filter { $0.at >= since }.map(\.action)
    }
}

extension ClusterNodeState.Action {
    /// Anything that reaches pages or other instances with the draw's state.
    var announces: Bool {
        switch self {
        case .publish, .publishTick, .publishSnapshot, .deliver: true
        default: false
        }
    }

    var delivered: String? {
        if case .deliver(let text, _) = self { return text }
        if case .send(let text, _) = self { return text }
        return nil
    }

    var isOpenRoom: Bool {
        if case .openRoom = self { return true }
        return false
    }

    var isCloseRoom: Bool {
        if case .closeRoom = self { return true }
        return false
    }

    var forwardedRequest: UInt64? {
        if case .publishCommand(_, let request?) = self { return request }
        return nil
    }
}

@Suite struct ClusterNodeStateTests {
    @Test func oneInstanceTakesTheLeaseAndAnnouncesItself() {
        var sim = ClusterSim(instances: 2)
        sim.join(1, page: 1)
        sim.start()
        #expect(sim.owner == 0)
        #expect(sim.nodes[0].state.lease?.token == 1)
        #expect(sim.nodes[1].state.role == .follower)
        // The takeover committed a fresh seed; the new owner's `R` reached the follower's page.
        #expect(sim.records.count == 1)
        #expect(sim.actions(1).contains { $0.delivered?.contains(#""owner":"i0""#) == true })
    }

    @Test func aFollowerTakesOverWithinTheLeaseWhenTheOwnerStopsRenewing() {
        var sim = ClusterSim(instances: 3)
        sim.join(1, page: 1)
        sim.start()
        #expect(sim.owner == 0)
        sim.announce(0, #"{"type":"phase","phase":"idle"}"#)
        let died = sim.mark()
        sim.kill(0)
        sim.advance(.seconds(5)) { $0.owner != nil }
        let owner = sim.owner
        #expect(owner == 1 || owner == 2)
        // Redis frees the lease 2 s after the last renewal (at most 500 ms before the kill); the
        // others ask every 250 ms: a new owner within the lease plus one poll.
        let took = Double(sim.clock - died) / 1e9
        #expect(took <= 2.3, "took \(took) s")
        #expect(sim.nodes[owner ?? 0].state.lease?.token == 2)
        // The follower's page hears the new owner.
        if owner == 2 { #expect(sim.actions(1, since: died).contains { $0.delivered?.contains(#""owner":"i2""#) == true }) }
    }

    @Test func aFencedStaleOwnerAnnouncesNothing() {
        var sim = ClusterSim(instances: 2)
        sim.join(1, page: 1)
        sim.start()
        #expect(sim.owner == 0)
        // Another instance holds the lease now (the old one's expired in Redis unnoticed).
        sim.lastToken += 1
        sim.lease = (sim.lastToken, "i1", sim.clock + 10_000_000_000)
        let fencedAt = sim.mark()
        // Its next tick: refused by the fenced script, it steps down at once.
        sim.announceTick(0, seq: 1)
        #expect(sim.nodes[0].state.role != .owner)
        #expect(sim.actions(0, since: fencedAt).contains { $0.isCloseRoom })
        // From here its room may announce nothing: no frame to its pages, none published.
        let after = sim.mark()
        sim.announce(0, #"{"type":"result","round":1}"#)
        sim.announceTick(0, seq: 2)
        #expect(!sim.actions(0, since: after).contains { $0.announces })
        #expect(!sim.actions(1, since: fencedAt).contains { $0.delivered?.contains("tick") == true })
    }

    @Test func anOwnerWhoseWriteIsRefusedStepsDown() {
        var sim = ClusterSim(instances: 2)
        sim.start()
        let since = sim.mark()
        sim.send(0, .gaveUp(token: nil, reason: "the round log refused its token", release: false))
        #expect(sim.nodes[0].state.lease == nil)
        #expect(sim.actions(0, since: since).contains { $0.isCloseRoom })
        #expect(!sim.nodes[0].state.mayAnnounce(at: sim.clock))
        let after = sim.mark()
        sim.send(0, .announced(#"{"type":"result"}"#, kind: .other, stream: .reliable))
        sim.send(0, .settled)
        #expect(!sim.actions(0, since: after).contains { $0.announces })
    }

    @Test func aForwardedStopSurvivesAChangeOfOwner() throws {
        var sim = ClusterSim(instances: 3)
        sim.join(1, page: 1, host: true)
        sim.start()
        #expect(sim.owner == 0)
        sim.kill(0)
        // The host's Stop on a follower while nobody owns the draw: nobody hears it, so it goes again.
        let sent = sim.mark()
        sim.send(1, .received(#"{"type":"stop","seq":7}"#, from: 1))
        sim.drain()
        let request = try #require(sim.actions(1, since: sent).compactMap(\.forwardedRequest).first)
        sim.advance(.seconds(4)) { $0.nodes[1].answers[request] != nil }
        let owner = try #require(sim.owner)
        #expect(owner != 0)
        let answers = try #require(sim.nodes[1].answers[request])
        #expect(answers.count == 1)
        if owner == 2 {
            // Answered by the new owner, after being published until someone listened.
            guard case .success(let reply)? = answers.first else { Issue.record("no reply"); return }
            #expect(reply.ack["by"]?.stringValue == "i2")
            #expect(sim.actions(1, since: sent).filter { $0.forwardedRequest == request }.count > 2)
        } else {
            // This instance took over itself and ran it on its own room.
            guard case .success = answers.first else { Issue.record("no reply"); return }
        }
        // A second copy of the answer (a resend heard twice) finds nothing waiting.
        sim.send(1, .replied(ClusterReply(draw: "ROOM", id: request, outcome: .success(CommandReply(ack: .object([:]))))))
        #expect(sim.nodes[1].answers[request]?.count == 1)
        #expect(sim.nodes[1].state.forwarded.isEmpty)
    }

    @Test func aForwardedCommandHeardByAReplacedOwnerFailsOnce() throws {
        var sim = ClusterSim(instances: 3)
        sim.join(2, page: 1, host: true)
        sim.start()
        // The owner hears it but is paused before answering; another instance (1, the first to ask
        // for the lease) takes over, and this one (2) learns of it from its `R`.
        sim.pause(0)
        sim.send(2, .received(#"{"type":"stop","seq":8}"#, from: 1))
        sim.drain()
        let request = try #require(sim.actions(2).compactMap(\.forwardedRequest).last)
        sim.advance(.seconds(4)) { $0.nodes[2].answers[request] != nil }
        #expect(sim.owner == 1)
        let answers = try #require(sim.nodes[2].answers[request])
        // The host gets `cluster_unavailable` once (and resyncs); the old owner's late answer changes nothing.
        #expect(answers.count == 1)
        guard case .failure(let failure)? = answers.first else { Issue.record("expected a failure"); return }
        #expect(failure.code == "cluster_unavailable")
        sim.resume(0)
        sim.advance(.milliseconds(100))
        #expect(sim.nodes[2].answers[request]?.count == 1)
    }

    @Test func redisDownThenUp() throws {
        var sim = ClusterSim(instances: 2)
        sim.join(1, page: 1, host: true)
        sim.start()
        #expect(sim.owner == 0)
        let down = sim.mark()
        let expires = try #require(sim.lease?.expires)
        sim.setRedis(up: false)
        // A command while Redis is down: refused at once (no durable log can be written).
        sim.send(1, .received(#"{"type":"start","seq":1}"#, from: 1))
        let refused = sim.nodes[1].answers.values.flatMap { $0 }
        #expect(refused.count == 1)
        if case .failure(let failure)? = refused.first { #expect(failure.code == "cluster_unavailable") } else { Issue.record("not refused") }
        // The owner cannot renew: its room (ticking every 50 ms) stops announcing a margin before
        // its lease could end in Redis, and it steps down.
        for _ in 0..<60 {
            sim.announceTick(0, seq: 1)
            sim.advance(.milliseconds(50))
        }
        #expect(sim.nodes[0].state.lease == nil)
        #expect(sim.owner == nil)
        let lapsed = try #require(sim.nodes[0].actions.first { $0.at > down && $0.action.isCloseRoom }?.at)
        let lastAnnounced = try #require(sim.nodes[0].actions.last { $0.at > down && $0.action.announces }?.at)
        #expect(lastAnnounced < expires - UInt64(Duration.milliseconds(150).nanosecondCount))
        #expect(lapsed <= expires + UInt64(Duration.milliseconds(500).nanosecondCount))
        // Nobody asks for the lease, and nothing is announced, while Redis is down.
        sim.announce(0, #"{"type":"phase","phase":"idle"}"#)
        for index in 0..<2 {
            #expect(!sim.actions(index, since: lapsed).contains { if case .acquireLease = $0 { return true }; return false })
            #expect(!sim.actions(index, since: lapsed).contains { $0.announces })
        }
        // Back up: an owner again within a poll or two, and the follower's page gets its state.
        let up = sim.mark()
        sim.setRedis(up: true)
        sim.advance(.seconds(3)) { $0.owner != nil && !$0.actions(1, since: up).filter { $0.delivered?.contains(#""type":"state""#) == true }.isEmpty }
        let owner = try #require(sim.owner)
        #expect(Double(sim.clock - up) / 1e9 <= 1.0)
        #expect(sim.nodes[owner].state.lease?.token == 2)
        if owner == 0 {
            #expect(sim.actions(1, since: up).contains { $0.delivered?.contains(#""owner":"i0""#) == true })
        }
    }

    /// Redis failed over and the new primary lacks the owner's last snapshot (a plain SET, not
    /// WAITed: the old primary died before a replica had it). The owner stores it again when
    /// its connection is a new one, so a page joining another instance is shown the phase the
    /// owner is in, not the one before (a Sentinel test saw a round shown unrevealed after its
    /// reveal).
    @Test func anOwnerStoresItsSnapshotAgainOnANewRedisConnection() throws {
        var sim = ClusterSim(instances: 2)
        sim.start()
        #expect(sim.owner == 0)
        let before = try #require(sim.snapshotKey)
        sim.announce(0, #"{"type":"phase","phase":"revealed"}"#)
        let latest = try #require(sim.snapshotKey)
        #expect(latest.seq > before.seq)
        sim.snapshotKey = before  // lost with the old primary
        let failover = sim.mark()
        for index in 0..<2 { sim.send(index, .redisReconnected) }
        sim.drain()
        // Only the owner writes it; the follower has nothing to store.
        #expect(sim.actions(0, since: failover).contains { if case .publishSnapshot = $0 { return true }; return false })
        #expect(!sim.actions(1, since: failover).contains { $0.announces })
        let stored = try #require(sim.snapshotKey)
        #expect(stored.seq > latest.seq)
        sim.join(1, page: 7)
        let shown = sim.actions(1, since: failover).compactMap(\.delivered).filter { $0.contains(#""type":"state""#) }
        #expect(shown.last?.contains(#""seq":\#(stored.seq)"#) == true, "\(shown)")
    }

    /// A page joined a follower whose snapshot read brought nothing (the key unreadable during
    /// a failover). The follower reads again on its next ticks until one comes, one read at a
    /// time, instead of waiting for the owner's next publication (an idle draw may make none).
    @Test func aPageWaitingForASnapshotGetsItFromALaterRead() throws {
        var sim = ClusterSim(instances: 2)
        sim.start()
        #expect(sim.owner == 0)
        let kept = try #require(sim.snapshotKey)
        sim.snapshotKey = nil
        let joined = sim.mark()
        sim.join(1, page: 7)
        func states(_ sim: ClusterSim) -> [String] {
            sim.actions(1, since: joined).compactMap(\.delivered).filter { $0.contains(#""type":"state""#) }
        }
        #expect(states(sim).isEmpty)
        // Still nothing to read: one read per tick, never two at once.
        sim.advance(.seconds(1))
        let reads = sim.actions(1, since: joined).filter { if case .readSnapshot = $0 { return true }; return false }.count
        #expect(reads >= 2)
        #expect(states(sim).isEmpty)
        sim.snapshotKey = kept
        sim.advance(.seconds(1)) { !states($0).isEmpty }
        #expect(states(sim).count == 1)
        // Once it has one, it stops reading.
        let got = sim.mark()
        sim.advance(.seconds(1))
        #expect(!sim.actions(1, since: got).contains { if case .readSnapshot = $0 { return true }; return false })
    }

    @Test func thePausedOwnerRace() throws {
        var sim = ClusterSim(instances: 3)
        sim.join(2, page: 1)
        sim.start()
        #expect(sim.owner == 0)
        // The owner stops (GC, SIGSTOP, a VM paused) with a fresh lease, for longer than the lease.
        sim.pause(0)
        let paused = sim.mark()
        sim.advance(.seconds(3)) { $0.owner != nil }
        let owner = try #require(sim.owner)
        #expect(owner != 0)
        sim.advance(.milliseconds(300))
        // It wakes up believing it owns the draw: its room wants to announce before its timer runs.
        let woke = sim.mark()
        sim.nodes[0].paused = false
        sim.announce(0, #"{"type":"result","round":1}"#)
        sim.announceTick(0, seq: 99)
        sim.resume(0)
        sim.advance(.milliseconds(600))
        // Its lease ran out by its own clock: it stepped down and announced nothing.
        #expect(sim.nodes[0].state.role != .owner)
        #expect(!sim.actions(0, since: woke).contains { $0.announces })
        // A frame it published with its old token (sent before the pause, delivered late) is dropped.
        let late = sim.mark()
        sim.send(2, .channel(.frame(.tick, instance: "i0", token: 1, body: #"{"type":"tick","seq":5}"#)))
        #expect(!sim.actions(2, since: late).contains { $0.announces })
        #expect(sim.nodes[2].state.highestToken == 2)
        _ = paused
    }

    /// A node that takes the lease of "ROOM" and reads back `records` (the last commitment's
    /// `seed` sealed beside them): what it did on the lease, on the log read and on opening.
    /// `pages`: pages here before it, each with what it sent first.
    static func takeOver(_ records: [DrawRecord], config: DrawConfig, seed: Seed, commitment: String, pages: [(UInt64, String)] = [])
        -> (state: ClusterNodeState, leased: [ClusterNodeState.Action], read: [ClusterNodeState.Action], opened: [ClusterNodeState.Action]) {
        let settings = ClusterSettings(endpoint: RedisEndpoint(host: "127.0.0.1"), key: Array(repeating: 9, count: 32))
        var state = ClusterNodeState(settings: .init(code: "ROOM", instanceID: "i1", cluster: settings))
        var random = SeededGenerator(seed: 3)
        let now = ClusterNodeState.Moment(nanoseconds: 10_000_000_000, wallMilliseconds: 1_764_000_000_000)
        _ = state.handle(.redis(up: true), at: now, using: &random)
        for (id, text) in pages {
            _ = state.handle(.joined(id, remote: "10.0.0.\(id)", device: nil), at: now, using: &random)
            _ = state.handle(.received(text, from: id), at: now, using: &random)
        }
        let lease = OwnerLease(draw: "ROOM", owner: "i1", token: 4, validUntil: now.nanoseconds + 2_000_000_000)
        let leased = state.handle(.leaseAcquired(.acquired(lease)), at: now, using: &random)
        let chain = ClusterChain(configJSON: config.json.canonicalString, records: records,
                                 pendingSeal: (SeedSeal.seal(seed, key: settings.key, code: "ROOM"), commitment), epoch: "e", offset: "1-0")
        let read = state.handle(.chainRead(token: 4, .success(chain)), at: now, using: &random)
        _ = state.handle(.bookRead(token: 4, .read(CheckinBook(settings: CheckinSettings(), entries: []))), at: now, using: &random)
        let opened = state.handle(.roundStateRead(token: 4, .init(rolling: nil, snapshot: nil, ticks: 40)), at: now, using: &random)
        return (state, leased, read, opened)
    }

    @Test func takeoverCarriesOnAStopTheOldOwnerNeverRevealed() throws {
        // `ClusterResume` in the takeover path (issue 32): a sealed seed resumed, a Stop in the log
        // but not revealed in the last snapshot: the new room gets `.resumeStopping`.
        var old = try ClusterResumeTests.OldOwner()
        old.start()
        let seed = try old.stop()
        // The log: the old owner's records, the last commitment's seed sealed beside it.
        guard case .commit(let commitment, _)? = old.records.last(where: {
            if case .commit = $0.body { return true }; return false
        })?.body else { Issue.record("no commit"); return }
        let (state, leased, _, opened) = Self.takeOver(old.records, config: .standard, seed: seed, commitment: commitment)
        #expect(leased.contains { if case .readChain(4) = $0 { return true }; return false })
        #expect(state.role == .owner)
        #expect(opened.contains { if case .openRoom(_, 40, _) = $0 { return true }; return false })
        #expect(opened.contains { if case .toRoom(.event(.resumeStopping)) = $0 { return true }; return false })
        // Nothing new committed: the seed was taken up.
        #expect(!opened.contains { if case .appendTakeover = $0 { return true }; return false })
    }

    @Test func takeoverResumesARoundWaitingForItsDrandRound() throws {
        // The chain ends with a `beacon` lock: the seed is in the lock, nothing is committed anew,
        // no alarm, and the room rolls on and fetches the same drand round (`.resumeSealed`).
        let old = try ClusterResumeTests.SealedOwner()
        guard case .commit(let commitment, _)? = old.records.first?.body else { Issue.record("no commit"); return }
        let seed = try #require(Seed(bytes: Array(repeating: 5, count: 32)))
        let (state, _, read, opened) = Self.takeOver(old.records, config: ClusterResumeTests.SealedOwner.config, seed: seed, commitment: commitment)
        #expect(state.role == .owner)
        #expect(!(read + opened).contains { if case .log(.error) = $0 { return true }; return false })
        #expect(opened.contains { if case .openRoom(let draw, 40, _) = $0 { return draw.sealing != nil }; return false })
        #expect(opened.contains { if case .toRoom(.event(.resumeSealed)) = $0 { return true }; return false })
        #expect(!opened.contains { if case .appendTakeover = $0 { return true }; return false })
    }

    @Test func aForwardedStopOfASealedDrawWaitsForItsDrandRound() throws {
        var settings = ClusterSettings(endpoint: RedisEndpoint(host: "127.0.0.1"), key: Array(repeating: 9, count: 32))
        settings.sealedStopWait = BeaconSettings().longestWait
        var state = ClusterNodeState(settings: .init(code: "ROOM", instanceID: "i2", cluster: settings))
        let stop = ClusterRequest.command(.stop, seq: nil, client: nil, awaitReveal: false)
        let start = ClusterRequest.command(.start(audience: nil), seq: nil, client: nil, awaitReveal: false)
        #expect(state.forwardWait(stop) == .seconds(10), "no snapshot of the owner's state here")
        let sealed = try ClusterResumeTests.SealedOwner()
        state.snapshot = ClusterSnapshot(token: 1, seq: 1, epoch: "e", offset: "1-0", text: sealed.room.state.stateText(for: nil))
        // The lock margin, one quicknet period, the 10 s wait limit.
        #expect(state.forwardWait(stop) == .seconds(10) + .milliseconds(1_000 + 3_000 + 10_000))
        #expect(state.forwardWait(start) == .seconds(10))
        // A plain draw's Stop: as before (a failing-over Redis answers cluster_unavailable as soon).
        var plain = try ClusterResumeTests.OldOwner()
        plain.start()
        state.snapshot = ClusterSnapshot(token: 1, seq: 2, epoch: "e", offset: "1-0", text: plain.room.state.stateText(for: nil))
        #expect(state.forwardWait(stop) == .seconds(10))
    }

    /// A follower's pages with a device cookie or a host's key get their own check-in part:
    /// gathered for 20 ms, each once, those still here, at most 1,000 per read (docs/CLUSTER.md).
    @Test func aFollowersPagesAskForTheirOwnCheckinTogether() {
        let cluster = ClusterSettings(endpoint: RedisEndpoint(host: "127.0.0.1"), key: Array(repeating: 9, count: 32))
        let device = String(repeating: "ab", count: 32)
        func follower(checkin: Bool) -> (ClusterNodeState, [ClusterNodeState.Action]) {
            var state = ClusterNodeState(settings: .init(code: "ROOM", instanceID: "i2", cluster: cluster))
            var random = SeededGenerator(seed: 1)
            let now = ClusterNodeState.Moment(nanoseconds: 5_000_000_000, wallMilliseconds: 1_764_000_000_000)
            _ = state.handle(.redis(up: true), at: now, using: &random)
            for id in UInt64(1)...1_500 { _ = state.handle(.joined(id, remote: "10.0.0.1", device: id == 7 ? nil : device), at: now, using: &random) }
            _ = state.handle(.left(3), at: now, using: &random)
            let text = checkin ? #"{"type":"state","checkin":{"me":null}}"# : #"{"type":"state","checkin":null}"#
            var actions = state.handle(.snapshotRead(ClusterSnapshot(token: 1, seq: 1, epoch: "e", offset: "", text: text), resend: false),
                                       at: now, using: &random)
            actions += state.handle(.keyChecked(7, .accepted), at: now, using: &random)  // a host: its `names`
            actions += state.handle(.keyChecked(8, .accepted), at: now, using: &random)  // already waiting: asked once
            return (state, actions)
        }
        let (first, gathered) = follower(checkin: true)
        var state = first
        let timers = gathered.compactMap { if case .schedule(.ownCheckin, let at) = $0 { at } else { nil } }
        #expect(timers == [5_020_000_000], "one 20 ms timer for them all")
        #expect(!gathered.contains { if case .askOwnCheckin = $0 { true } else { false } })
        var random = SeededGenerator(seed: 2)
        let later = ClusterNodeState.Moment(nanoseconds: 5_020_000_000, wallMilliseconds: 1_764_000_000_020)
        _ = state.handle(.left(9), at: later, using: &random)
        let asked = state.handle(.timerDue(.ownCheckin), at: later, using: &random).compactMap {
            if case .askOwnCheckin(let pages, let asks) = $0 { (pages, asks) } else { nil }
        }
        #expect(asked.map(\.0.count) == [1_000, 498], "1,500 joined (7 with no device becomes a host); 3 and 9 left; 8 once")
        let pages = asked.flatMap(\.0)
        #expect(Set(pages).count == pages.count && !pages.contains(3) && !pages.contains(9))
        #expect(zip(pages, asked.flatMap(\.1)).allSatisfy { page, ask in
            page == 7 ? ask == CheckinQuery.PageAsk(device: nil, host: true)
                      : ask == CheckinQuery.PageAsk(device: device, host: page == 8)
        })
        #expect(state.handle(.timerDue(.ownCheckin), at: later, using: &random).isEmpty, "nothing left to ask")
        // An owner's state without a check-in part: nothing to ask.
        let (_, plain) = follower(checkin: false)
        #expect(!plain.contains { if case .schedule(.ownCheckin, _) = $0 { true } else { false } })
    }

    /// A new owner takes up its pages as its room's members: a page's `hello` (its entropy and
    /// client) goes to the room as a typed event, after the page's join, not as text to parse again.
    @Test func aTakeoverHandsTheRoomEachPagesHelloTyped() throws {
        var old = try ClusterResumeTests.OldOwner()
        old.start()
        let seed = try old.stop()
        guard case .commit(let commitment, _)? = old.records.last(where: { if case .commit = $0.body { true } else { false } })?.body else {
            Issue.record("no commit"); return
        }
        let entropy = "00112233445566778899aabbccddeeff"
        let (_, _, _, opened) = Self.takeOver(old.records, config: .standard, seed: seed, commitment: commitment, pages: [
            (4, #"{"type":"hello","entropy":"\#(entropy)","client":"phone-4"}"#), (5, #"{"type":"hello"}"#),
        ])
        let inputs = opened.compactMap { if case .toRoom(let input) = $0 { input } else { nil } }
        let joined = inputs.firstIndex { if case .join(4, _, _) = $0 { true } else { false } }
        let hello = inputs.firstIndex { if case .hello(4, let e, "phone-4") = $0 { e.hex == entropy } else { false } }
        #expect(joined != nil && hello != nil && joined! < hello!)
        #expect(!inputs.contains { if case .hello(5, _, _) = $0 { true } else { false } }, "no entropy: nothing to take up")
        #expect(!inputs.contains { if case .received = $0 { true } else { false } })
    }
}
