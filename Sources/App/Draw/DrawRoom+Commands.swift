import DrawEngine
import JSON
import Posix
import Storage

/// Host commands, one at a time: a command that writes to storage holds the queue until
/// the write is done, so a resend or a double tap always sees the outcome of the first.
extension DrawRoom {
    func pump() {
        while !busy, !queue.isEmpty {
            let job = queue.removeFirst()
            run(job)
        }
    }

    private var now: Int64 { Int64(WallClock.unixMilliseconds()) }

    private func newSeed() -> Seed {
        var csprng = SystemRandomNumberGenerator()
        return Seed.random(using: &csprng)
    }

    private func ack(_ job: Job, _ extra: [String: JSONValue] = [:]) -> JSONValue {
        var members = extra
        members["type"] = .string("ack")
        members["seq"] = job.seq.map { .int($0) } ?? .null
        members["command"] = .string(job.command.name)
        return .object(members)
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
        return (values, ids)
    }

    private func run(_ job: Job) {
        if let seq = job.seq, let reply = applied[job.client ?? ""]?.acks[seq] {
            job.completion(.success(reply))
            return
        }
        do {
            switch job.command {
            case .start(let audience):
                let contributions = currentContributions
                try draw.start(contributions: contributions.values, audience: audience, at: now)
                frozenMembers = contributions.members
                record(AuditEntry(actor: "host", action: "start", detail: .object([
                    "round": .int(Int64(draw.nextRound)), "audience": audience.map { .string($0) } ?? .null,
                    "contributors": .int(Int64(Set(contributions.values).count))])))
                succeed(job, CommandReply(ack: ack(job)))
                broadcast(Self.phaseMessage(.rolling))
                startTicking()

            case .stop:
                var candidate = draw
                let records = try candidate.stop(at: now, nextSeed: newSeed())
                let entry = AuditEntry(actor: "host", action: "stop", detail: .object(["round": .int(Int64(draw.nextRound))]))
                store(records, job: job, audit: entry) { [self] in
                    draw = candidate
                    metrics.rounds.increment()
                    stopTicking()
                    if job.awaitReveal {
                        revealWaiters.append(job.completion)
                        metrics.commands.increment()
                        remember(job, CommandReply(ack: ack(job)))
                    } else {
                        succeed(job, CommandReply(ack: ack(job)))
                    }
                    broadcast(Self.phaseMessage(.stopping))
                    slowDown()
                }

            case .clear:
                var candidate = draw
                let record = try candidate.clear(at: now)
                let entry = AuditEntry(actor: "host", action: "clear", detail: .object(["record": .int(Int64(record.index))]))
                store([record], job: job, clearedThrough: record.index, audit: entry) { [self] in
                    draw = candidate
                    lastTick = nil
                    succeed(job, CommandReply(ack: ack(job)))
                    broadcast(.object(["type": .string("cleared")]))
                    broadcast(Self.phaseMessage(.idle))
                }

            case .configure(let config):
                var candidate = draw
                let duplicates = try candidate.configure(config)
                let text = DrawPersistence.encode(candidate.config)
                let entry = AuditEntry(actor: "host", action: "configure", detail: .object([
                    "poolHash": candidate.commit.map { .string($0.poolHash) } ?? .null,
                    "remaining": .int(Int64(clamping: candidate.remaining))]))
                store([], job: job, config: text, audit: entry) { [self] in
                    draw = candidate
                    configText = text
                    succeed(job, CommandReply(ack: ack(job, ["duplicates": .array(duplicates.map { .string($0) })])))
                    // One shared frame for every page (a 100,000-name list is encoded once, not per page).
                    group.broadcast(text: configMessageText(), stream: .reliable)
                    if let commit = draw.commit { broadcast(commit.message) }
                }

            case .void(let round, let winner, let reason, let audience):
                var candidate = draw
                let contributions = currentContributions
                let records = try candidate.void(round: round, winner: winner, reason: reason,
                                                 contributions: contributions.values, audience: audience,
                                                 nextSeed: newSeed(), at: now)
                let entry = AuditEntry(actor: "host", action: "void", detail: .object([
                    "round": .int(Int64(round)), "winner": winner.json, "reason": .string(reason)]))
                store(records, job: job, audit: entry) { [self] in
                    draw = candidate
                    metrics.rounds.increment()
                    frozenMembers = contributions.members
                    let result = draw.lastResult?.resultMessage()
                    succeed(job, CommandReply(ack: ack(job), result: result))
                    if let result { broadcast(result) }
                    if let commit = draw.commit { broadcast(commit.message) }
                }
            }
        } catch {
            metrics.refusedCommands.increment()
            job.completion(.failure(CommandFailure(code: error.code)))
        }
    }

    private func remember(_ job: Job, _ reply: CommandReply) {
        if let seq = job.seq { applied[job.client ?? "", default: SeqLog()].insert(seq, reply) }
    }

    private func succeed(_ job: Job, _ reply: CommandReply) {
        metrics.commands.increment()
        remember(job, reply)
        job.completion(.success(reply))
    }

    /// Stores records (and settings / the Clear mark) in one synced transaction, then runs
    /// `then` on the loop. On failure the host hears `storage_failed`/`disk_full`, nothing is
    /// announced and the room checks that memory still matches the store.
    private func store(_ records: [DrawRecord], job: Job, config: String? = nil, clearedThrough: Int? = nil,
                       audit entry: AuditEntry? = nil, then: @escaping () -> Void) {
        busy = true
        let code = self.code
        let bound = LoopBound(then, loop: loop)
        let audit = self.audit
        storage.async({ database in
            try DrawPersistence.append(records, code: code, config: config, clearedThrough: clearedThrough,
                                       audit: entry.map { (audit, $0) }, in: database)
        }, completion: { [self] result in
            loop.execute { [self] in
                busy = false
                switch result {
                case .success:
                    bound.value()
                case .failure(let error):
                    metrics.storageFailures.increment()
                    metrics.refusedCommands.increment()
                    DrawLog.error("storing \(job.command.name) of draw \(code) failed, nothing announced: \(error)")
                    job.completion(.failure(CommandFailure(code: DrawPersistence.errorCode(error))))
                    resynchronize()
                }
                pump()
            }
        })
    }

    /// Appends to the audit log without holding the queue (a failure is only logged).
    func record(_ entry: AuditEntry) {
        let code = self.code
        let audit = self.audit
        storage.async({ database in
            try DrawPersistence.append([], code: code, audit: (audit, entry), in: database)
        }, completion: { result in
            if case .failure(let error) = result { DrawLog.error("audit \(entry.action) for \(code): \(error)") }
        })
    }

    /// After a failed write: if part of it reached the store anyway, rebuild from the store
    /// (idle, with a fresh commitment) so memory and disk never disagree.
    private func resynchronize() {
        let code = self.code
        let expected = draw.recordCount
        busy = true
        storage.async({ database -> Draw? in
            guard let row = try database.loadDraw(code: code) else { return nil }
            let stored = try database.loadRecords(drawCode: code).count
            guard stored != expected else { return nil }
            var restored = try DrawPersistence.restore(row, in: database)
            var csprng = SystemRandomNumberGenerator()
            let record = try restored.prepareCommitment(seed: .random(using: &csprng), at: Int64(WallClock.unixMilliseconds()))
            try DrawPersistence.append([record], code: code, in: database)
            return restored
        }, completion: { [self] result in
            loop.execute { [self] in
                busy = false
                if case .success(let restored?) = result {
                    stopTicking()
                    draw = restored
                    configText = DrawPersistence.encode(restored.config)
                    sendStateToAll()
                }
                pump()
            }
        })
    }

    func sendStateToAll() {
        for (id, member) in members { member.handle.send(text: stateText(for: id)) }
    }

    // MARK: Ticks and the slow-down

    private func tickMessage(_ value: DrawValue) -> JSONValue {
        tickSeq += 1
        let message: JSONValue = .object(["type": .string("tick"), "seq": .int(tickSeq),
                                          "at": .double(WallClock.unixMilliseconds()), "value": value.json])
        lastTick = message
        return message
    }

    private func startTicking() {
        tickTimer?.cancel()
        let interval = Duration.nanoseconds(1_000_000_000 / Int64(max(1, settings.tickHz)))
        let clock = ContinuousClock()
        // Ticks are due at start + n × interval, so a late wake-up shortens the next wait
        // instead of stretching every period (re-arming `interval` after each tick ran fell
        // to ~19 Hz under load). More than one tick behind, the schedule restarts from now
        // rather than bursting to catch up: ticks are a latest-value stream.
        var due = clock.now
        func tick() {
            guard draw.phase == .rolling else { return }
            broadcast(tickMessage(draw.rollingValue(using: &display)), stream: .latestValue)
            let now = clock.now
            due += interval
            if due < now - interval { due = now + interval }
            tickTimer = loop.scheduleTimer(after: max(.zero, due - now)) { tick() }
        }
        tick()
    }

    private func stopTicking() {
        tickTimer?.cancel()
        tickTimer = nil
    }

    /// Delays between slow-down ticks: from the tick interval, growing by a fifth each time,
    /// adding up to `settings.slowDown`; the last tick shows the first winner.
    static func slowDownDelays(tickHz: Int, total: Duration) -> [Duration] {
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

    private func slowDown() {
        guard case .round(let round)? = draw.lastResult?.body, let first = round.winners.first else {
            reveal()
            return
        }
        var delays = Self.slowDownDelays(tickHz: settings.tickHz, total: settings.slowDown)[...]
        func step() {
            guard let delay = delays.popFirst() else { return }
            tickTimer = loop.scheduleTimer(after: delay) { [self] in
                if delays.isEmpty {
                    broadcast(tickMessage(first), stream: .reliable)
                    reveal()
                } else {
                    broadcast(tickMessage(draw.rollingValue(using: &display)), stream: .latestValue)
                    step()
                }
            }
        }
        if delays.isEmpty { reveal() } else { step() }
    }

    private func reveal() {
        tickTimer = nil
        guard (try? draw.reveal()) != nil else { return }
        let result = draw.lastResult?.resultMessage()
        if let result { broadcast(result) }
        broadcast(Self.phaseMessage(.revealed))
        if let commit = draw.commit { broadcast(commit.message) }
        let waiters = revealWaiters
        revealWaiters = []
        for waiter in waiters {
            waiter(.success(CommandReply(ack: .object(["type": .string("ack"), "command": .string("stop")]), result: result)))
        }
    }
}
