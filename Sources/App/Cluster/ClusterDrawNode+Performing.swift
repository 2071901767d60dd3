import DrawRoomCore
import ClusterCore
import RedisStore
import DrawEngine
import JSON
import Posix
import Server

/// The shell's half of `ClusterNodeState`: events in with the time, actions performed. Loop only.
extension ClusterDrawNode {
    /// Hands `event` to the state machine with the time (and, first, Redis's connection state
    /// if it changed), then performs what it returns.
    func feed(_ event: ClusterNodeState.Event) {
        let now = ClusterNodeState.Moment(nanoseconds: MonotonicClock.nanoseconds(), wallMilliseconds: Int64(WallClock.unixMilliseconds()))
        let up = store.client.state == .ready
        if up != state.redisUp { perform(state.handle(.redis(up: up), at: now, using: &random)) }
        if up, store.client.readyCount != redisConnection {
            let first = redisConnection == 0
            redisConnection = store.client.readyCount
            if !first { perform(state.handle(.redisReconnected, at: now, using: &random)) }
        }
        perform(state.handle(event, at: now, using: &random))
    }

    func perform(_ actions: [ClusterNodeState.Action]) {
        for action in actions { perform(action) }
    }

    /// Starts request `request` (its message to the owner: `forward`); its completion is called
    /// once, by the room here or with the owner's answer.
    func submit(_ request: Request, forward: ClusterRequest, localFirst: Bool) {
        nextRequest += 1
        requests[nextRequest] = request
        feed(.submit(nextRequest, forward: forward, localFirst: localFirst))
    }

    private func perform(_ action: ClusterNodeState.Action) {
        switch action {
        // Redis.
        case .acquireLease:
            store.acquireLease(draw: code, owner: runtime.instanceID, ttl: settings.leaseTTL) { [self] result in
                feed(.leaseAcquired(try? result.get()))
            }
        case .renewLease(let lease):
            store.renewLease(lease, ttl: settings.leaseTTL) { [self] result in
                let outcome: ClusterNodeState.RenewOutcome
                switch result {
                case .success(let renewed): outcome = .renewed(renewed)
                case .failure(.fenced): outcome = .fenced
                case .failure: outcome = .failed
                }
                feed(.leaseRenewed(token: lease.token, outcome))
            }
        case .releaseLease(let lease, let finishesShutdown):
            store.releaseLease(lease) { [self] _ in if finishesShutdown { finishShutdown() } }
        case .readChain(let token):
            readChain { [self] result in feed(.chainRead(token: token, result)) }
        case .readBook(let token):
            checkinStore.read(draw: code) { [self] result in
                switch result {
                case .failure(let error): feed(.bookRead(token: token, .failed("\(error)")))
                case .success(let read): feed(.bookRead(token: token, ClusterStoredRows.book(from: read).map { .read($0) } ?? .unreadable))
                }
            }
        case .readRoundState(let token):
            store.client.send(["MGET", keys.rolling, keys.snapshot, keys.tickSeq]) { [self] result in
                guard case .success(let reply) = result, let values = reply.array, values.count == 3 else {
                    return feed(.roundStateRead(token: token, nil))
                }
                feed(.roundStateRead(token: token, .init(rolling: values[0].string, snapshot: values[1].string, ticks: values[2].integer ?? 0)))
            }
        case .appendTakeover(let batch, let token):
            append(batch) { [self] result in
                if case .failure(let error) = result { return feed(.takeoverCommitted(token: token, failure: "\(error)")) }
                feed(.takeoverCommitted(token: token, failure: nil))
            }
        case .publish(let message):
            store.client.send([Array("PUBLISH".utf8), Array(keys.channel.utf8), message.encoded]) { _ in }
        case .publishTick(let seq, let message, let lease):
            store.publishTick(seq: seq, payload: message.encoded, lease: lease) { [self] result in
                if case .success(false) = result { feed(.tickPublished(token: lease.token, accepted: false)) }
            }
        case .publishSnapshot(let token, let seq, let epoch, let offset, let announcesOwner):
            guard let room else { return }
            let snapshot = ClusterSnapshot(token: token, seq: seq, epoch: epoch, offset: offset, text: room.publicStateText)
            // Fenced (and, behind Sentinel, on a replica before it counts): a plain SET queued
            // while Redis was unreachable went out after the owner's lease had run out and
            // overwrote the next owner's snapshot; every follower that had heard the new owner's
            // token then refused the older one, and pages joining there were shown nothing.
            if let lease = state.lease, lease.token == token {
                store.setIfOwner(keys.snapshot, value: Array(snapshot.stored(by: runtime.instanceID).utf8), lease: lease) { _ in }
            }
            perform(.publish(.snapshot(snapshot, instance: runtime.instanceID, announcesOwner: announcesOwner)))
        case .keepRolling(let lease):
            if let room { keepRolling(room.currentDraw, lease: lease) }
        case .publishCommand(let message, let request):
            store.client.send([Array("PUBLISH".utf8), Array(keys.commands.utf8), message.encoded]) { [self] result in
                guard let request else { return }
                switch result {
                // A reply that is not a count is taken as heard (as `!= 0`).
                case .success(let reply): feed(.forwardPublished(request, listeners: reply.integer ?? 1))
                case .failure: feed(.forwardPublished(request, listeners: nil))
                }
            }
        case .publishReply(let reply, let instance):
            publishReply(reply, to: instance)
        case .readSnapshot(let resend):
            store.client.send(["GET", keys.snapshot]) { [self] result in
                var read: ClusterSnapshot?
                if case .success(let reply) = result, let text = reply.string { read = Self.parseSnapshot(text) }
                feed(.snapshotRead(read, resend: resend))
            }
        case .checkLog(let cursor):
            store.catchUp(draw: code, from: cursor) { [self] result in feed(.logChecked(result.map(\.0))) }
        case .subscribe(let channel):
            switch channel {
            case .fanout: runtime.subscriber.subscribe(keys.channel) { [weak self] payload in self?.fanout(payload) }
            case .commands: runtime.subscriber.subscribe(keys.commands) { [weak self] payload in self?.feed(.commandChannel(payload)) }
            }
            subscriptionsReady(reconnected: false)
        case .unsubscribe(let channel):
            runtime.subscriber.unsubscribe(channel == .fanout ? keys.channel : keys.commands)
        case .finishShutdown:
            finishShutdown()

        // Pages here.
        case .deliver(let text, let stream):
            group.broadcast(text: text, stream: stream)
        case .send(let text, let id):
            handles[id]?.send(text: text)
        case .askOwnCheckin(let pages, let asks):
            askOwnCheckin(pages, asks)
        case .relayWinnerPresence:
            relayWinnerPresence()
        case .checkKey(let key, let remote, let id):
            // Held by the limiter until Redis answers (milliseconds): a strong capture is no cycle.
            let verdict = hostKey.verdict(for: key, from: remote, limiter: runtime.limiter) { [self] verdict in
                loop.execute { [self] in feed(.keyChecked(id, verdict)) }
            }
            if let verdict { feed(.keyChecked(id, verdict)) }
        case .pageCommand(let command, let seq, let client, let id):
            guard let handle = handles[id] else { return }
            submit(command, seq: seq, client: client, awaitReveal: false) { outcome in
                switch outcome {
                case .success(let reply): handle.send(text: reply.ack.canonicalString)
                case .failure(let failure): handle.send(text: DrawWire.errorText(failure.code, seq: seq))
                }
            }
        case .countAuthFailure:
            runtime.metrics.authFailures.increment()

        // The owner's room.
        case .openRoom(let draw, let ticks, let book):
            openRoom(draw, ticksAfter: ticks, book: book)
        case .closeRoom:
            setOwner(false)
            room?.shutdown()
            room = nil
            keptWithRecords = [:]
        case .toRoom(let input):
            guard let room else { return }
            switch input {
            case .event(let event): room.apply(event)
            case .join(let id, let remote, let device):
                guard let handle = handles[id] else { return }
                room.join(handle, remote: remote, device: device)
            case .leave(let id): room.leave(id)
            case .received(let text, let id): room.received(text, from: id)
            case .hello(let id, let entropy, let client): room.hello(id, entropy: entropy, client: client)
            case .keyChecked(let id, let verdict): room.keyChecked(id, verdict)
            case .linkDevice(let page, let device): room.linkRemoteDevice(page, device: device)
            case .pruneDevices(let live): room.pruneRemoteDevices(live: live)
            }
        case .runOnRoom(let id):
            switch requests.removeValue(forKey: id) {
            case .command(let command, let seq, let client, let awaitReveal, let completion)?:
                performOnOwner(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion)
            case .checkin(let local, let completion)?:
                guard let room else { return completion(.failure(CommandFailure(code: "cluster_unavailable"))) }
                local(room)
            case nil:
                break
            }
        case .inbound(let request, let from, let id):
            guard let room else { return }
            switch request {
            case .checkin(let ask): inboundCheckin(ask, from: from, id: id, room: room)
            case .command(let command, let seq, let client, let awaitReveal):
                inboundCommand(command, seq: seq, client: client, awaitReveal: awaitReveal, from: from, id: id)
            }

        case .answer(let id, let outcome):
            requests.removeValue(forKey: id)?.completion(outcome)
        case .schedule(let timer, let at):
            timers[timer]?.cancel()
            let now = MonotonicClock.nanoseconds()
            let delay = at > now ? at - now : 0
            // Strong: a `ScheduledTimer` is only a handle; the loop lets go of the closure once it fired or was cancelled.
            timers[timer] = loop.scheduleTimer(after: .nanoseconds(Int64(delay))) { [self] in
                timers[timer] = nil
                feed(.timerDue(timer))
            }
        case .cancel(let timer):
            timers.removeValue(forKey: timer)?.cancel()
        case .log(.owner(let token, let records)):
            Log.event("cluster.owner", fields: ["draw": .string(code), "token": .int(token), "instance": .string(runtime.instanceID),
                                                "records": .int(Int64(records))],
                      text: "tombola: instance \(runtime.instanceID) owns draw \(code) (token \(token), \(records) records)")
        case .log(.stepDown(let token, let reason)):
            Log.event("cluster.step_down", level: .error, fields: ["draw": .string(code), "token": .int(token)],
                      text: "tombola: instance \(runtime.instanceID) stops owning draw \(code) (token \(token)): \(reason)")
        case .log(.error(let message)):
            DrawLog.error(message, code: code)
        case .audit(let entry):
            recordAudit(entry)
        }
    }

    private func finishShutdown() {
        let done = shutdownDone
        shutdownDone = nil
        done?()
    }

    /// The owner's answer to a request this instance forwarded (its reply channel).
    func replied(_ reply: ClusterReply) {
        feed(.replied(reply))
    }

    /// Publishes an answer on instance `instance`'s reply channel (read by `replied` there). Loop only.
    func publishReply(_ reply: ClusterReply, to instance: String) {
        store.client.send([Array("PUBLISH".utf8), Array(RedisDrawKeys.replies(instance: instance).utf8), reply.encoded]) { _ in }
    }

    /// A message on the draw's channel, in publication order.
    func fanout(_ payload: [UInt8]) {
        guard let message = ClusterChannelMessage.decode(payload) else { return }
        feed(.channel(message))
    }

    /// Opens the owner's room on the draw rebuilt at the takeover (`ClusterNodeState.open`).
    private func openRoom(_ draw: Draw, ticksAfter ticks: Int64, book: CheckinBook?) {
        let room = DrawRoom(code: code, draw: draw, hostKeyHash: hostKey.value, loop: loop,
                            store: ClusterRecordStore(node: self), limiter: runtime.limiter,
                            settings: runtime.roomSettings, metrics: runtime.metrics, group: group)
        room.announcer = self
        room.apply(.continueTicks(after: ticks))
        adoptCheckin(room, book: book)
        room.connect(pastDrawLinks())
        self.room = room
        setOwner(true)
        publishedWinners = nil
        publishWinnersIfChanged(room)
    }
}
