import Cluster
import Crypto
import DrawEngine
import JSON
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
/// `@unchecked Sendable`: immutable properties plus state used only on `loop`.
final class ClusterDrawNode: DrawChannel, DrawAnnouncer, @unchecked Sendable {
    let code: String
    let group = BroadcastGroup()
    let loop: EventLoop
    private let runtime: ClusterRuntime
    private let keys: Cluster.DrawKeys
    private let hostKey: HostKeyHash
    private var store: ClusterStore { runtime.store }
    private var settings: ClusterSettings { runtime.settings }

    private struct Member {
        let handle: WebSocketSessionHandle
        let remote: String
        var isHost = false
        var client: String?
        var entropy: Contribution?
    }

    /// A snapshot as published: who published it, in what order, and after which log entry.
    private struct Snapshot {
        var token: Int64
        var seq: Int64
        var epoch: String
        var offset: String
        var text: String
    }

    private struct Forwarded {
        let completion: @Sendable (Result<CommandReply, CommandFailure>) -> Void
        let timer: ScheduledTimer
        /// The newest owner's token known when it was sent.
        let token: Int64
    }

    // Loop-only state.
    private var members: [UInt64: Member] = [:]
    private var room: DrawRoom?
    private var lease: OwnerLease?
    private var leaseBusy = false
    private var halted = false
    private var stopped = false
    private var timer: ScheduledTimer?
    private var lastCountReport: UInt64 = 0
    // Owner: what it published and stored.
    private var publishedSeq: Int64 = 0
    private var reliableSinceSettle = false
    private var logEpoch = ""
    private var logOffset = ""
    private var nextBatch: UInt64 = 0
    private var remoteCounts: [String: (count: Int, at: UInt64)] = [:]
    // Follower: the owner's view.
    private var subscribed = false
    private var snapshot: Snapshot?
    private var highestToken: Int64 = 0
    private var lastTick: String?
    private var lastViewers: String?
    private var waitingForSnapshot: [UInt64] = []
    private var cursor = ChainCursor()
    private var catchingUp = false
    private var forwarded: [UInt64: Forwarded] = [:]
    private var nextForward: UInt64 = 0
    /// A new owner announces itself (`R`) once it hears its command channel.
    private var announcePending = false
    /// Commands that arrived between taking the lease and opening the room.
    private var waitingForRoom: [() -> Void] = []

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

    func join(_ handle: WebSocketSessionHandle, remote: String) {
        loop.execute { [self] in
            members[handle.id] = Member(handle: handle, remote: remote)
            if let room {
                room.join(handle, remote: remote)
            } else {
                subscribeIfNeeded()
                sendSnapshot(to: handle.id)
            }
        }
    }

    func leave(_ id: UInt64) {
        loop.execute { [self] in
            if room == nil, members[id]?.entropy != nil { forwardEntropy(nil, of: id) }
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
                    room.apply(.keyChecked(id, verdict))
                } else {
                    switch verdict {
                    case .accepted: member.handle.send(text: Self.roleHost)
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

    func publicState(_ completion: @escaping @Sendable (String) -> Void) {
        loop.execute { [self] in
            if let room { return completion(room.publicStateText) }
            if subscribed, let snapshot { return completion(snapshot.text) }
            store.client.send(["GET", keys.snapshot]) { [self] result in
                if case .success(let reply) = result, let text = reply.string, let read = Self.parseSnapshot(text) {
                    accept(read)
                }
                completion(snapshot?.text ?? Self.unavailableState(code: code))
            }
        }
    }

    /// Every record, read from the round log (any instance can export).
    func export(_ completion: @escaping @Sendable (Result<[DrawRecord], any Error>) -> Void) {
        loop.execute { [self] in readChain { completion($0.map(\.records)) } }
    }

    // MARK: Commands

    private func submit(_ command: HostCommand, seq: Int64?, client: String?, awaitReveal: Bool,
                        completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        // Redis unreachable: no durable log can be written, so nothing can be done (docs/CLUSTER.md).
        guard store.client.state == .ready else {
            return completion(.failure(CommandFailure(code: "cluster_unavailable")))
        }
        if let room {
            room.perform(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion)
            return
        }
        if lease != nil {
            // Taking over: the room opens once the log is read.
            waitingForRoom.append { [self] in
                submit(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion)
            }
            return
        }
        nextForward += 1
        let id = nextForward
        let timer = loop.scheduleTimer(after: settings.forwardTimeout) { [self] in
            forwarded.removeValue(forKey: id)?.completion(.failure(CommandFailure(code: "cluster_unavailable")))
        }
        forwarded[id] = Forwarded(completion: completion, timer: timer, token: highestToken)
        let message: JSONValue = .object([
            "kind": .string("command"), "from": .string(runtime.instanceID), "id": .int(Int64(id)),
            "seq": seq.map { .int($0) } ?? .null, "client": client.map { .string($0) } ?? .null,
            "await": .bool(awaitReveal), "command": Self.encode(command),
        ])
        store.client.send([Array("PUBLISH".utf8), Array(keys.commands.utf8), Array(message.canonicalString.utf8)]) { [self] result in
            // Nobody listening: no owner right now (a takeover is under way, or Redis lost the lease).
            if case .success(let reply) = result, reply.integer != 0 { return }
            guard let entry = forwarded.removeValue(forKey: id) else { return }
            entry.timer.cancel()
            entry.completion(.failure(CommandFailure(code: "cluster_unavailable")))
        }
    }

    /// An answer to a command this instance forwarded (from its reply channel).
    func replied(_ json: JSONValue) {
        guard let id = json["id"]?.intValue, let entry = forwarded.removeValue(forKey: UInt64(id)) else { return }
        entry.timer.cancel()
        if json["ok"]?.boolValue == true, let ack = json["ack"] {
            let result = json["result"].flatMap { $0.isNull ? nil : $0 }
            entry.completion(.success(CommandReply(ack: ack, result: result)))
        } else {
            entry.completion(.failure(CommandFailure(code: json["code"]?.stringValue ?? "cluster_unavailable")))
        }
    }

    /// The owner's inbound channel: forwarded commands and other instances' viewer counts.
    private func inbound(_ payload: [UInt8]) {
        guard let room, let json = try? JSONValue.parse(payload), let from = json["from"]?.stringValue else { return }
        switch json["kind"]?.stringValue {
        case "viewers":
            remoteCounts[from] = (Int(json["count"]?.intValue ?? 0), MonotonicClock.nanoseconds())
            room.apply(.remoteViewers(remoteViewerSum()))
        case "entropy":
            guard let page = json["page"]?.intValue else { return }
            let entropy = json["entropy"]?.stringValue.flatMap(Contribution.init(hex:))
            room.apply(.remoteEntropy("\(from)/\(page)", entropy))
        case "command":
            guard let id = json["id"]?.intValue, let body = json["command"], let type = body["type"]?.stringValue else { return }
            let replyChannel = Cluster.DrawKeys.replies(instance: from)
            let code = self.code
            let store = self.store
            @Sendable func answer(_ members: [String: JSONValue]) {
                var members = members
                members["draw"] = .string(code)
                members["id"] = .int(id)
                let text = JSONValue.object(members).canonicalString
                store.client.send([Array("PUBLISH".utf8), Array(replyChannel.utf8), Array(text.utf8)]) { _ in }
            }
            let command: HostCommand
            do { command = try DrawMessageParser.command(type, body) } catch {
                return answer(["ok": .bool(false), "code": .string(error.code)])
            }
            let loop = self.loop
            room.perform(command, seq: json["seq"]?.intValue, client: json["client"]?.stringValue,
                         awaitReveal: json["await"]?.boolValue == true) { outcome in
                loop.execute {
                    switch outcome {
                    case .success(let reply):
                        answer(["ok": .bool(true), "ack": reply.ack, "result": reply.result ?? .null])
                    case .failure(let failure):
                        answer(["ok": .bool(false), "code": .string(failure.code)])
                    }
                }
            }
        default:
            break
        }
    }

    /// A page's entropy (nil: it left) for the owner's next round, as it counts a page of its own.
    private func forwardEntropy(_ entropy: Contribution?, of id: UInt64) {
        let message: JSONValue = .object(["kind": .string("entropy"), "from": .string(runtime.instanceID), "page": .int(Int64(id)),
                                          "entropy": entropy.map { .string($0.hex) } ?? .null])
        store.client.send([Array("PUBLISH".utf8), Array(keys.commands.utf8), Array(message.canonicalString.utf8)]) { _ in }
    }

    private func remoteViewerSum() -> Int {
        let now = MonotonicClock.nanoseconds()
        remoteCounts = remoteCounts.filter { now &- $0.value.at < 3_500_000_000 }
        return remoteCounts.values.reduce(0) { $0 + $1.count }
    }

    // MARK: The lease

    /// Every `pollInterval`: the owner renews (and steps down when it cannot any more); the
    /// others try to take the lease; everyone reports its viewer count once a second.
    private func tick() {
        guard !stopped else { return }
        timer = loop.scheduleTimer(after: lease == nil ? settings.pollInterval : settings.renewInterval) { [self] in tick() }
        let now = MonotonicClock.nanoseconds()
        if now &- lastCountReport >= 1_000_000_000 {
            lastCountReport = now
            // Followers report their pages; the owner drops the counts of instances gone quiet.
            if let room { room.apply(.remoteViewers(remoteViewerSum())) } else { reportCount() }
        }
        if halted || leaseBusy { return }
        if let lease {
            guard lease.isValid(margin: settings.safetyMargin) else {
                return stepDown("its lease ran out before it could renew it (Redis unreachable?)")
            }
            leaseBusy = true
            store.renewLease(lease, ttl: settings.leaseTTL) { [self] result in
                leaseBusy = false
                guard self.lease?.token == lease.token else { return }
                switch result {
                case .success(let renewed): self.lease = renewed
                case .failure(.fenced): stepDown("fenced: another instance holds the lease")
                case .failure: break  // tried again next time; the lease's validity runs out by itself
                }
            }
        } else {
            leaseBusy = true
            store.acquireLease(draw: code, owner: runtime.instanceID, ttl: settings.leaseTTL) { [self] result in
                leaseBusy = false
                if case .success(.acquired(let lease)) = result, !stopped { takeOver(lease) }
            }
        }
    }

    private func reportCount() {
        let count = members.count
        guard count > 0 || subscribed else { return }
        let message: JSONValue = .object(["kind": .string("viewers"), "from": .string(runtime.instanceID), "count": .int(Int64(count))])
        store.client.send([Array("PUBLISH".utf8), Array(keys.commands.utf8), Array(message.canonicalString.utf8)]) { _ in }
    }

    /// This instance became the owner: rebuild the draw from the round log, check it, take up
    /// the committed seed (or commit a new one), and start the room.
    private func takeOver(_ lease: OwnerLease) {
        // The lease is renewed meanwhile (`tick`), however long reading the log takes.
        self.lease = lease
        readChain { [self] result in
            guard self.lease?.token == lease.token, !stopped else { return }
            switch result {
            case .failure(let error):
                DrawLog.error("cluster: instance \(runtime.instanceID) took the lease (token \(lease.token)) but cannot read the log: \(error)", code: code)
                stepDown("cannot read the round log", announce: false)
            case .success(let chain):
                start(from: chain, lease: lease)
            }
        }
    }

    private func start(from chain: ClusterChain, lease: OwnerLease) {
        let records = chain.records
        // A recomputed result that disagrees with a stored one is an alarm, never an overwrite.
        if !records.isEmpty {
            let report = RoundVerifier.verify(records: records.map(\.json), code: code)
            if !report.passed {
                let problem = report.chainProblem ?? report.checks.first { !$0.ok }?.line ?? "?"
                DrawLog.error("cluster ALARM: the round log of draw \(code) does not verify (\(problem)); this instance will not act as its owner", code: code)
                halted = true
                stepDown("the log does not verify", announce: false)
                store.releaseLease(lease) { _ in }
                return
            }
        }
        guard let config = DrawPersistence.decode(chain.configJSON), var draw = try? Draw(config: config, restoring: records) else {
            DrawLog.error("cluster ALARM: the settings or records of draw \(code) cannot be read back; this instance will not act as its owner", code: code)
            halted = true
            stepDown("unreadable log", announce: false)
            return
        }
        var resumed = false
        if let (seal, commitment) = chain.pendingSeal,
           let seed = ClusterSeal.open(seal, key: settings.key, code: code, commitment: commitment) {
            do {
                try draw.resumeCommitment(seed)
                resumed = true
            } catch {
                DrawLog.error("cluster ALARM: the sealed seed of draw \(code) does not match its last commitment; committing a new one", code: code)
            }
        }
        logEpoch = chain.epoch
        logOffset = chain.offset
        if resumed {
            // Was a round rolling on this commitment? Then it carries on.
            store.client.send(["GET", keys.rolling]) { [self] result in
                guard self.lease?.token == lease.token, !stopped else { return }
                var draw = draw
                var rolling = false
                if case .success(let reply) = result, let text = reply.string, let hint = try? JSONValue.parse(text),
                   hint["commitment"]?.stringValue == draw.commit?.commitment, let items = hint["contributions"]?.arrayValue {
                    let contributions = items.compactMap { $0.stringValue.flatMap(Contribution.init(hex:)) }
                    if contributions.count == items.count,
                       (try? draw.start(contributions: contributions, audience: hint["audience"]?.stringValue,
                                        at: Int64(WallClock.unixMilliseconds()))) != nil {
                        rolling = true
                    }
                }
                open(draw, lease: lease)
                if rolling { room?.apply(.resumeRolling) }
            }
            return
        }
        var csprng = SystemRandomNumberGenerator()
        guard let record = try? draw.prepareCommitment(seed: .random(using: &csprng), at: Int64(WallClock.unixMilliseconds())) else {
            stepDown("cannot commit", announce: false)
            return
        }
        let prepared = draw
        append(RecordBatch(command: "takeover", records: [record], committedSeed: draw.committedSeed)) { [self] result in
            guard self.lease?.token == lease.token else { return }
            switch result {
            case .success: open(prepared, lease: lease)
            case .failure(let error):
                DrawLog.error("cluster: committing after the takeover failed: \(error)", code: code)
                stepDown("commit failed", announce: false)
            }
        }
    }

    private func open(_ draw: Draw, lease: OwnerLease) {
        let room = DrawRoom(code: code, draw: draw, hostKeyHash: hostKey.value, loop: loop,
                            store: ClusterRecordStore(node: self), limiter: runtime.limiter,
                            settings: runtime.roomSettings, metrics: runtime.metrics, group: group)
        room.announcer = self
        self.room = room
        unsubscribe()
        runtime.subscriber.subscribe(keys.commands) { [weak self] payload in self?.inbound(payload) }
        for (id, member) in members {
            room.join(member.handle, remote: member.remote)
            if member.isHost { loop.execute { room.apply(.keyChecked(id, .accepted)) } }
            if let entropy = member.entropy {
                let hello: JSONValue = .object(["type": .string("hello"), "entropy": .string(entropy.hex),
                                                "client": member.client.map { .string($0) } ?? .null])
                room.received(hello.canonicalString, from: id)
            }
        }
        room.apply(.remoteViewers(remoteViewerSum()))
        Log.event("cluster.owner", fields: ["draw": .string(code), "token": .int(lease.token), "instance": .string(runtime.instanceID),
                                            "records": .int(Int64(draw.recordCount))],
                  text: "tombola: instance \(runtime.instanceID) owns draw \(code) (token \(lease.token), \(draw.recordCount) records)")
        announcePending = true
        subscriptionsReady()
        let waiting = waitingForRoom
        waitingForRoom = []
        for run in waiting { run() }
    }

    /// Stops acting as the owner at once: no more ticks, writes or announcements.
    private func stepDown(_ reason: String, announce: Bool = true) {
        guard let lease else { return }
        self.lease = nil
        announcePending = false
        if let room {
            room.shutdown()
            self.room = nil
            runtime.subscriber.unsubscribe(keys.commands)
        }
        remoteCounts = [:]
        let waiting = waitingForRoom
        waitingForRoom = []
        for run in waiting { run() }  // forwarded now, to whoever owns the draw next
        if announce {
            Log.event("cluster.step_down", level: .error, fields: ["draw": .string(code), "token": .int(lease.token)],
                      text: "tombola: instance \(runtime.instanceID) stops owning draw \(code) (token \(lease.token)): \(reason)")
        }
        // Its pages follow the next owner from here, starting with its latest snapshot.
        if !members.isEmpty { subscribeIfNeeded(resend: true) }
    }

    // MARK: Announcing (owner; DrawAnnouncer)

    func mayAnnounce() -> Bool {
        guard let lease, lease.isValid(margin: settings.safetyMargin) else {
            if lease != nil { loop.execute { [self] in stepDown("its lease ran out") } }
            return false
        }
        return true
    }

    func announced(_ text: String, stream: OutboundStream) {
        guard let lease else { return }
        let kind: String
        if stream == .latestValue {
            kind = text.contains("\"type\":\"tick\"") ? "T" : (text.contains("\"type\":\"viewers\"") ? "V" : "L")
        } else {
            kind = "F"
            reliableSinceSettle = true
            if text.contains("\"phase\":\"rolling\""), let room { keepRolling(room.currentDraw, lease: lease) }
        }
        publish("\(kind)\n\(runtime.instanceID)\n\(lease.token)\n\(text)")
    }

    /// A round started: keep what Start froze beside the log, so that if this instance dies
    /// while it rolls, the next owner carries on the same round (same commitment, same frozen
    /// contributions and audience number: the same winners at Stop). Only the lease holder
    /// can write it; a stale one is ignored (it names a commitment already used).
    private func keepRolling(_ draw: Draw, lease: OwnerLease) {
        guard draw.phase == .rolling, let commit = draw.commit else { return }
        let hint: JSONValue = .object([
            "commitment": .string(commit.commitment), "round": .int(Int64(commit.round)),
            "contributions": .array(draw.frozenContributions.map { .string($0.hex) }),
            "audience": draw.frozenAudience.map { .string($0) } ?? .null,
        ])
        store.setIfOwner(keys.rolling, value: Array(hint.canonicalString.utf8), lease: lease) { _ in }
    }

    func settled(_ room: DrawRoom) {
        guard reliableSinceSettle, self.room === room else { return }
        reliableSinceSettle = false
        publishSnapshot(of: room, kind: "S")
    }

    private func publishSnapshot(of room: DrawRoom, kind: String) {
        guard let lease else { return }
        publishedSeq += 1
        let body = "\(runtime.instanceID)\n\(lease.token)\n\(publishedSeq)\n\(logEpoch) \(logOffset)\n\(room.publicStateText)"
        store.client.send([Array("SET".utf8), Array(keys.snapshot.utf8), Array(body.utf8)]) { _ in }
        publish("\(kind)\n" + body)
    }

    private func publish(_ text: String) {
        store.client.send([Array("PUBLISH".utf8), Array(keys.channel.utf8), Array(text.utf8)]) { _ in }
    }

    // MARK: Following

    private func subscribeIfNeeded(resend: Bool = false) {
        guard !subscribed, room == nil else { return }
        subscribed = true
        snapshot = nil
        runtime.subscriber.subscribe(keys.channel) { [weak self] payload in self?.fanout(payload) }
        refreshSnapshot(resend: resend)
    }

    private func unsubscribe() {
        guard subscribed else { return }
        subscribed = false
        runtime.subscriber.unsubscribe(keys.channel)
    }

    /// Every subscription is live. After a new connection (a Redis outage: messages may have
    /// been lost) a follower reads the latest snapshot and resends it to every page.
    func subscriptionsReady(reconnected: Bool) {
        subscriptionsReady()
        guard reconnected, subscribed, room == nil else { return }
        refreshSnapshot(resend: true)
    }

    /// A new owner's `R` goes out once its command channel is live, so that what the other
    /// instances send in answer (their pages' entropy, commands) reaches it.
    private func subscriptionsReady() {
        guard announcePending, let room, runtime.subscriber.liveChannels.contains(keys.commands) else { return }
        announcePending = false
        publishSnapshot(of: room, kind: "R")
    }

    private func refreshSnapshot(resend: Bool) {
        store.client.send(["GET", keys.snapshot]) { [self] result in
            if case .success(let reply) = result, let text = reply.string, let read = Self.parseSnapshot(text), accept(read) {
                if resend { for id in members.keys { sendSnapshot(to: id) } }
            }
            let waiting = waitingForSnapshot
            waitingForSnapshot = []
            for id in waiting { sendSnapshot(to: id) }
        }
    }

    private func sendSnapshot(to id: UInt64) {
        guard let member = members[id], room == nil else { return }
        guard let snapshot else {
            if !waitingForSnapshot.contains(id) { waitingForSnapshot.append(id) }
            return
        }
        member.handle.send(text: snapshot.text)
        if let lastTick { member.handle.send(text: lastTick) }
        if let lastViewers { member.handle.send(text: lastViewers) }
        if member.isHost { member.handle.send(text: Self.roleHost) }
    }

    /// One message from the owner's channel, in publication order.
    private func fanout(_ payload: [UInt8]) {
        let text = String(decoding: payload, as: UTF8.self)
        let parts = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let token = Int64(parts[2]), parts[1] != runtime.instanceID else { return }
        // A publication of an older owner (paused past its lease, then resumed) is dropped.
        guard token >= highestToken else { return }
        if token > highestToken { ownerChanged(to: token) }
        if let lease, token > lease.token { stepDown("a newer owner (token \(token)) publishes") }
        guard room == nil else { return }
        let body = String(parts[3])
        switch parts[0] {
        case "T":
            lastTick = body
            group.broadcast(text: body, stream: .latestValue)
        case "V":
            lastViewers = body
            group.broadcast(text: body, stream: .latestValue)
        case "L":
            group.broadcast(text: body, stream: .latestValue)
        case "F":
            if body.contains("\"type\":\"cleared\"") { lastTick = nil }
            group.broadcast(text: body, stream: .reliable)
        case "S", "R":
            guard let read = Self.parseSnapshot(String(text.dropFirst(2))), accept(read) else { return }
            // A new owner: every page gets its state (what it showed may have moved on).
            if parts[0] == "R" { for id in members.keys { sendSnapshot(to: id) } }
        default:
            break
        }
    }

    /// A new owner publishes: commands forwarded to an earlier one will not be answered (it
    /// died or was fenced), so they fail now rather than at their timeout. Their outcome is
    /// in the log: the host resyncs and decides, as after any `cluster_unavailable`.
    private func ownerChanged(to token: Int64) {
        highestToken = token
        // The new owner learns this instance's pages' entropy afresh.
        for (id, member) in members { if let entropy = member.entropy { forwardEntropy(entropy, of: id) } }
        for (id, entry) in forwarded where entry.token < token && entry.token > 0 {
            forwarded[id] = nil
            entry.timer.cancel()
            entry.completion(.failure(CommandFailure(code: "cluster_unavailable")))
        }
    }

    /// Takes a snapshot newer than the one held; checks the log up to its offset.
    @discardableResult
    private func accept(_ read: Snapshot) -> Bool {
        if let snapshot, (read.token, read.seq) <= (snapshot.token, snapshot.seq) { return false }
        if read.token < highestToken { return false }
        if read.token > highestToken { ownerChanged(to: read.token) }
        snapshot = read
        lastTick = nil
        if !read.offset.isEmpty, read.offset != cursor.offset { checkLog() }
        return true
    }

    /// Follows the round log with a `ChainCursor`: a gap or a new epoch (Redis lost data) is
    /// reported as an alarm, never papered over.
    private func checkLog() {
        guard !catchingUp else { return }
        catchingUp = true
        store.catchUp(draw: code, from: cursor) { [self] result in
            catchingUp = false
            switch result {
            case .success(let (advanced, _)):
                cursor = advanced
            case .failure(.broken(let broken)):
                DrawLog.error("cluster ALARM: the round log of draw \(code) changed under this instance: \(broken)", code: code)
                cursor = ChainCursor()
            case .failure(.store):
                break
            }
        }
    }

    // MARK: The round log (owner's store)

    /// Appends `batch` with the lease's fencing token; nothing is announced before this returns.
    func append(_ batch: RecordBatch, completion: @escaping (Result<Void, any Error>) -> Void) {
        guard batch.config != nil || !batch.records.isEmpty else { return completion(.success(())) }  // an audit entry alone
        guard let lease, lease.isValid(margin: settings.safetyMargin) else {
            return completion(.failure(ClusterError.fenced("this instance does not hold the lease of draw \(code)")))
        }
        let commitment: String? = batch.committedSeed?.commitment
        let records = batch.records.map { record -> LogRecord in
            var entry = LogRecord(index: record.index, hash: record.hash, prev: record.prev, json: record.canonicalJSON,
                                  idempotencyKey: "")
            if case .commit(let committed, _) = record.body, committed == commitment, let seed = batch.committedSeed {
                entry.seal = ClusterSeal.seal(seed, key: settings.key, code: code)
            }
            return entry
        }
        nextBatch += 1
        // A record index is taken once: a retry of a batch whose outcome was unknown learns where it landed.
        let key = records.first.map { "r\($0.index)" } ?? "c\(lease.token).\(nextBatch)"
        store.appendBatch(records, config: batch.config, idempotencyKey: key, lease: lease) { [self] result in
            switch result {
            case .success(let receipt):
                if !receipt.offset.isEmpty { logOffset = receipt.offset }
                logEpoch = receipt.epoch
                completion(.success(()))
            case .failure(let error):
                if case .fenced = error { stepDown("the round log refused its token (\(error))") }
                completion(.failure(error))
            }
        }
    }

    /// The draw's settings and every record, from Redis.
    func readChain(_ completion: @escaping (Result<ClusterChain, any Error>) -> Void) {
        store.client.send(["HGET", keys.meta, "config"]) { [self] configReply in
            let config: String
            switch configReply {
            case .success(let reply):
                guard let text = reply.string else { return completion(.failure(ClusterError.unexpectedReply("no settings for draw \(code)"))) }
                config = text
            case .failure(let error):
                return completion(.failure(ClusterError.unavailable(error)))
            }
            store.catchUp(draw: code, from: ChainCursor()) { result in
                switch result {
                case .failure(let error):
                    completion(.failure(error))
                case .success(let (cursor, entries)):
                    var records: [DrawRecord] = []
                    var seal: (String, String)?
                    for entry in entries {
                        guard let record = try? DrawRecord(text: entry.json) else {
                            return completion(.failure(ClusterError.unexpectedReply("record \(entry.index) of draw \(self.code) unreadable")))
                        }
                        if case .commit(let commitment, _) = record.body { seal = entry.seal.isEmpty ? nil : (entry.seal, commitment) }
                        records.append(record)
                    }
                    completion(.success(ClusterChain(configJSON: config, records: records, pendingSeal: seal,
                                                     epoch: cursor.epoch ?? "", offset: cursor.offset ?? "")))
                }
            }
        }
    }

    // MARK: Helpers

    static let roleHost = JSONValue.object(["type": .string("role"), "role": .string("host")]).canonicalString

    /// Until a first owner published: the draw exists, its state is not known here yet.
    static func unavailableState(code: String) -> String {
        JSONValue.object(["type": .string("error"), "code": .string("cluster_unavailable"),
                          "message": .string(DrawErrorText.message(for: "cluster_unavailable"))]).canonicalString
    }

    /// `"<instance>\n<token>\n<seq>\n<epoch> <offset>\n<state>"`.
    private static func parseSnapshot(_ text: String) -> Snapshot? {
        let parts = text.split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count == 5, let token = Int64(parts[1]), let seq = Int64(parts[2]) else { return nil }
        let position = parts[3].split(separator: " ", omittingEmptySubsequences: false)
        guard position.count == 2 else { return nil }
        return Snapshot(token: token, seq: seq, epoch: String(position[0]), offset: String(position[1]), text: String(parts[4]))
    }

    /// A host command as the JSON `DrawMessageParser.command` reads back.
    static func encode(_ command: HostCommand) -> JSONValue {
        var members: [String: JSONValue] = ["type": .string(command.name)]
        switch command {
        case .start(let audience):
            members["audience"] = audience.map { .string($0) } ?? .null
        case .stop, .clear:
            break
        case .configure(let config):
            members["config"] = config.json
        case .void(let round, let winner, let reason, let audience):
            members["round"] = .int(Int64(round))
            members["winner"] = winner.json
            members["reason"] = .string(reason)
            members["audience"] = audience.map { .string($0) } ?? .null
        }
        return .object(members)
    }
}

/// A draw's settings and records as the round log holds them, with the sealed seed of its
/// last commitment and where the log ends.
struct ClusterChain: Sendable {
    var configJSON: String
    var records: [DrawRecord]
    /// The seal beside the last `commit` record and that record's commitment.
    var pendingSeal: (seal: String, commitment: String)?
    var epoch: String
    var offset: String
}

/// The owner room's store in cluster mode: the round log in Redis through the node, which
/// holds the lease whose fencing token every append carries.
struct ClusterRecordStore: DrawRecordStore {
    let node: ClusterDrawNode

    func append(_ batch: RecordBatch, to code: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let node = self.node
        node.loop.execute { node.append(batch, completion: completion) }
    }

    func chain(of code: String, completion: @escaping @Sendable (Result<StoredChain, any Error>) -> Void) {
        let node = self.node
        node.loop.execute {
            node.readChain { completion($0.map { StoredChain(configJSON: $0.configJSON, records: $0.records) }) }
        }
    }

    func errorCode(for error: any Error) -> String { "cluster_unavailable" }
}

/// A commitment's seed sealed with AES-256-GCM under the cluster key, bound to its draw and
/// commitment: `hex(nonce) hex(ciphertext) hex(tag)` joined by '.'.
enum ClusterSeal {
    static func seal(_ seed: Seed, key: [UInt8], code: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<AES256GCM.nonceByteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
        guard let box = try? AES256GCM.seal(seed.bytes, key: key, nonce: nonce, additionalData: aad(code, seed.commitment)) else { return "" }
        return [nonce, box.ciphertext, box.tag].map(Hex.encode).joined(separator: ".")
    }

    /// The seed, or nil when the seal is damaged, was made with another key, for another
    /// draw, or for another commitment.
    static func open(_ text: String, key: [UInt8], code: String, commitment: String) -> Seed? {
        let parts = text.split(separator: ".").map { Hex.decode(String($0)) }
        guard parts.count == 3, let nonce = parts[0], let ciphertext = parts[1], let tag = parts[2],
              let bytes = try? AES256GCM.open(AES256GCM.SealedBox(ciphertext: ciphertext, tag: tag), key: key, nonce: nonce,
                                              additionalData: aad(code, commitment)) else { return nil }
        return Seed(bytes: bytes)
    }

    private static func aad(_ code: String, _ commitment: String) -> [UInt8] {
        Array("tombola-seed:\(code):\(commitment)".utf8)
    }
}
