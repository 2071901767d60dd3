import DrawRoomCore
import RedisStore
import Crypto
import DrawEngine
import JSON
import Posix
import Server

/// The lease, the takeover, stepping down, and the owner's writes to the round log
/// (docs/CLUSTER.md, *Ownership*).
extension ClusterDrawNode {
    // MARK: The lease

    /// Every `pollInterval`: the owner renews (and steps down when it cannot any more); the
    /// others try to take the lease; everyone reports its viewer count once a second.
    func tick() {
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
            // Only on a live connection: a lease counts from when its acquire was queued, so one
            // that waited for Redis to come back would start out nearly spent.
            guard store.client.state == .ready else { return }
            leaseBusy = true
            store.acquireLease(draw: code, owner: runtime.instanceID, ttl: settings.leaseTTL) { [self] result in
                leaseBusy = false
                guard case .success(.acquired(let lease)) = result, !stopped else { return }
                takeOver(lease)
                // The lease counts from when the acquire was sent: if its answer was slow, little is left
                // by that count, so renew now rather than at the next tick.
                if !lease.isValid(margin: settings.renewInterval + settings.safetyMargin), self.lease?.token == lease.token {
                    timer?.cancel()
                    tick()
                }
            }
        }
    }

    func reportCount() {
        let count = members.count
        guard count > 0 || subscribed else { return }
        let message: JSONValue = .object(["kind": .string("viewers"), "from": .string(runtime.instanceID), "count": .int(Int64(count))])
        store.client.send([Array("PUBLISH".utf8), Array(keys.commands.utf8), Array(message.canonicalString.utf8)]) { _ in }
    }

    /// This instance became the owner: rebuild the draw from the round log, check it, take up
    /// the committed seed (or commit a new one), and start the room.
    func takeOver(_ lease: OwnerLease) {
        // The lease is renewed meanwhile (`tick`), however long reading the log takes.
        self.lease = lease
        readChain { [self] result in
            guard self.lease?.token == lease.token, !stopped else { return }
            switch result {
            case .failure(let error):
                DrawLog.error("cluster: instance \(runtime.instanceID) took the lease (token \(lease.token)) but cannot read the log: \(error)", code: code)
                stepDown("cannot read the round log", announce: false)
            case .success(let chain):
                readCheckin(lease: lease) { [self] in start(from: chain, lease: lease) }
            }
        }
    }

    func start(from chain: ClusterChain, lease: OwnerLease) {
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
        let rebuilt = draw
        // What the old owner left beside the log: a round rolling or a Stop not yet revealed (the new
        // owner carries either on), and the highest tick seq it announced (ticks continue above it).
        store.client.send(["MGET", keys.rolling, keys.snapshot, keys.tickSeq]) { [self] result in
            guard self.lease?.token == lease.token, !stopped else { return }
            guard case .success(let reply) = result, let values = reply.array, values.count == 3 else {
                DrawLog.error("cluster: instance \(runtime.instanceID) cannot read the round state of draw \(code)", code: code)
                return stepDown("cannot read the round state", announce: false)
            }
            var draw = rebuilt
            let carried = resumed ? ClusterResume.resume(&draw, rolling: values[0].string, snapshot: values[1].string,
                                                         now: Int64(WallClock.unixMilliseconds())) : nil
            let ticks = values[2].integer ?? 0
            if resumed { return open(draw, lease: lease, ticksAfter: ticks, carrying: carried) }
            commitAfterTakeover(draw, lease: lease, ticksAfter: ticks)
        }
    }

    /// No seed could be taken up: commits a new one (a `restart` commit), then opens the room.
    private func commitAfterTakeover(_ draw: Draw, lease: OwnerLease, ticksAfter ticks: Int64) {
        var draw = draw
        guard let record = try? draw.prepareFreshCommitment() else {
            stepDown("cannot commit", announce: false)
            return
        }
        let prepared = draw
        append(RecordBatch(command: "takeover", records: [record], committedSeed: draw.committedSeed)) { [self] result in
            guard self.lease?.token == lease.token else { return }
            switch result {
            case .success: open(prepared, lease: lease, ticksAfter: ticks, carrying: nil)
            case .failure(let error):
                DrawLog.error("cluster: committing after the takeover failed: \(error)", code: code)
                stepDown("commit failed", announce: false)
            }
        }
    }

    /// Opens the room on the rebuilt draw: its ticks numbered above `ticks`, and `carried` (a
    /// round rolling or stopping when the old owner stopped) carried on live.
    func open(_ draw: Draw, lease: OwnerLease, ticksAfter ticks: Int64, carrying carried: DrawRoomState.Event?) {
        let room = DrawRoom(code: code, draw: draw, hostKeyHash: hostKey.value, loop: loop,
                            store: ClusterRecordStore(node: self), limiter: runtime.limiter,
                            settings: runtime.roomSettings, metrics: runtime.metrics, group: group)
        room.announcer = self
        room.apply(.continueTicks(after: ticks))
        adoptCheckin(room)
        room.connect(pastDrawLinks())
        self.room = room
        setOwner(true)
        publishedWinners = nil
        publishWinnersIfChanged(room)
        unsubscribe()
        runtime.subscriber.subscribe(keys.commands) { [weak self] payload in self?.inbound(payload) }
        for (id, member) in members {
            room.join(member.handle, remote: member.remote, device: member.device)
            if member.isHost { room.keyChecked(id, .accepted) }
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
        recordAudit(AuditEntry(actor: "system", action: "takeover",
                               detail: .object(["token": .int(lease.token), "instance": .string(runtime.instanceID)])))
        announcePending = true
        subscriptionsReady()
        if let carried { room.apply(carried) }
        let waiting = waitingForRoom
        waitingForRoom = []
        for run in waiting { run() }
    }

    /// Stops acting as the owner at once: no more ticks, writes or announcements.
    func stepDown(_ reason: String, announce: Bool = true) {
        guard let lease else { return }
        self.lease = nil
        announcePending = false
        setOwner(false)
        if let room {
            room.shutdown()
            self.room = nil
            runtime.subscriber.unsubscribe(keys.commands)
        }
        remoteCounts = [:]
        keptWithRecords = [:]
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

    // MARK: The round log (owner's store)

    /// Appends `batch` with the lease's fencing token; nothing is announced before this returns.
    func append(_ batch: RecordBatch, completion: @escaping (Result<Void, any Error>) -> Void) {
        if batch.checkin != nil { return appendCheckin(batch, completion: completion) }  // ClusterDrawNode+Checkin
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
        // The command's answer is kept with its records: resent to the next owner, it gets the same answer.
        let answer = batch.answer.map {
            KeptAnswer(client: $0.client, seq: $0.seq, text: Self.encodeAnswer($0.reply), ttl: settings.answerTTL, keep: settings.answersKept)
        }
        store.appendBatch(records, config: batch.config, idempotencyKey: key, lease: lease, answer: answer) { [self] result in
            switch result {
            case .success(let receipt):
                if let answer = batch.answer { keptWithRecords["\(answer.client)\t\(answer.seq)"] = answer.reply }
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
}
