import JSON
import Crypto
import DrawEngine

/// Host commands, one at a time: the queue, the writes they make and what follows once stored.
extension DrawRoomState {
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
        if !isBusy, let (request, outcome, skipped) = beaconArrived {
            beaconArrived = nil
            sealed(request, outcome, skipped: skipped, at: time, using: &random, &actions)
        }
        while !isBusy, !queue.isEmpty {
            let job = queue.removeFirst()
            run(job, at: time, using: &random, &actions)
        }
    }

    /// The contributions of the pages connected now (latest per page).
    var currentContributions: (values: [Contribution], members: Set<UInt64>) {
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

    mutating func run(_ job: Job, at time: Time, using random: inout some RandomNumberGenerator,
                              _ actions: inout [Action]) {
        if let seq = job.seq, let reply = applied[job.client ?? ""]?.acks[seq] {
            deliver(.success(reply), for: job, &actions)
            return
        }
        let now = time.unixMilliseconds
        if archived, !job.command.isRetentionErase {
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
                if let pool = plan.pool, pool.runsOffLoop {
                    // Closing a large check-in locks its pool off the loop, as a large configure does.
                    preparing = job
                    preparingCheckin = plan
                    actions.append(.prepareConfigure(pool))
                } else {
                    checkinPlanned(job, plan, pool: plan.pool?.run(), &actions)
                }
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
            case .handover(let request):
                runHandover(request, job: job, at: time, &actions)
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

            case .beaconRetry:
                retryBeacon(job, at: time, &actions)

            case .beaconAbandon(let reason):
                try abandonBeacon(job, reason: reason, at: time, &actions)

            case .signoff(let request):
                // Only an observer signs off (issue #41); the room checked the role, this names them.
                guard let by = job.by, by.role == .observer else {
                    actions.append(.count(.refusedCommands))
                    deliver(.failure(CommandFailure(code: "role_forbidden")), for: job, &actions)
                    return
                }
                var candidate = draw
                let record = try candidate.signoff(request, observer: by.name, observerId: by.id, at: now)
                let entry = AuditEntry(actor: "host", action: "signoff", detail: .object([
                    "round": .int(Int64(request.round)), "statement": .string(request.statement.rawValue),
                    "record": .int(Int64(record.index)), "ownKey": .bool(request.publicKey != nil)]))
                write(RecordBatch(command: job.command.name, records: [record], audit: entry), job: job, candidate: candidate,
                      then: .signoff, &actions)

            case .stop:
                var candidate = draw
                let records = try candidate.stop(at: now, nextSeed: .random(using: &random))
                let entry = AuditEntry(actor: "host", action: "stop", detail: .object(["round": .int(Int64(draw.nextRound))]))
                write(RecordBatch(command: job.command.name, records: records, audit: entry), job: job, candidate: candidate,
                      then: .stop(ranAt: time.instant), &actions)

            case .clear, .wipeRehearsal:
                var rehearsal = false
                if case .wipeRehearsal = job.command { rehearsal = true }
                var candidate = draw
                let record = try candidate.clear(at: now, rehearsal: rehearsal)
                let entry = AuditEntry(actor: "host", action: rehearsal ? "wipe-rehearsal" : "clear",
                                       detail: .object(["record": .int(Int64(record.index))]))
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
                // Retention is swept on a single box only: elsewhere the setting would promise an erase nobody does.
                if config.retentionDays != nil, !settings.sweepsRetention {
                    actions.append(.count(.refusedCommands))
                    deliver(.failure(CommandFailure(code: "not_supported")), for: job, &actions)
                    return
                }
                try checkPastDraws(config)
                let plan = ConfigurePlan(base: draw, config: config,
                                         pastWinners: config.excludeWinnersOf.compactMap { links.winners(EntrantList.trim($0.code)) })
                if plan.runsOffLoop {
                    // The queue waits for the outcome (`isBusy`), as it waits for a write.
                    preparing = job
                    actions.append(.prepareConfigure(plan))
                } else {
                    configured(job, plan.run(), &actions)
                }

            case .void(let round, let winner, let reason, let audience) where draw.config.beacon:
                // The replacement is sealed by a drand round of its own (issue #40), not drawn from the seed.
                var candidate = draw
                let contributions = currentContributions
                let beacon = settings.beacon
                let records = try candidate.voidSealing(round: round, winner: winner, reason: reason, contributions: contributions.values,
                                                        audience: audience, chain: beacon.chain, relays: beacon.relays, at: now)
                let entry = AuditEntry(actor: "host", action: "void", detail: .object([
                    "round": .int(Int64(round)), "winner": winner.json, "reason": .string(reason),
                    "beaconRound": .int(Int64(candidate.sealing?.beaconRound ?? 0))]))
                write(RecordBatch(command: job.command.name, records: records, audit: entry), job: job, candidate: candidate,
                      then: .voidSealing(contributors: contributions.members, voided: records.first?.voidMessage()), &actions)

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

    /// A configure's outcome (worked out in place or off the loop): written, or refused.
    mutating func configured(_ job: Job, _ outcome: ConfigureOutcome, _ actions: inout [Action]) {
        switch outcome.result {
        case .failure(let failure):
            actions.append(.count(.refusedCommands))
            deliver(.failure(failure), for: job, &actions)
        case .success(let made):
            let entry = AuditEntry(actor: "host", action: "configure", detail: .object([
                "poolHash": made.candidate.commit.map { .string($0.poolHash) } ?? .null,
                "remaining": .int(Int64(clamping: made.candidate.remaining))]))
            write(RecordBatch(command: job.command.name, records: [], config: made.storedText, audit: entry), job: job,
                  candidate: made.candidate, then: .configure(text: made.publicText, duplicates: made.duplicates), &actions)
        }
    }

    /// A configure (or a check-in command's pool) prepared off the loop is back: written if the draw
    /// is still the one it was worked out from, else run again (in order: it is still the queue's first).
    mutating func configurePrepared(_ outcome: ConfigureOutcome, at time: Time,
                                    using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        guard let job = preparing else { return }
        let checkin = preparingCheckin
        preparing = nil
        preparingCheckin = nil
        if outcome.isBased(on: draw), let checkin {
            // The check-in book waited with the queue (joins are stored only while nothing else is),
            // so the plan is still the one whose pool the outcome locked.
            checkinPlanned(job, checkin, pool: outcome, &actions)
        } else if outcome.isBased(on: draw) {
            configured(job, outcome, &actions)
        } else {
            queue.insert(job, at: 0)
        }
        pump(at: time, using: &random, &actions)
        flushJoins(&actions)
    }

    mutating func write(_ batch: RecordBatch, job: Job, candidate: Draw, then: PendingWrite.Continuation,
                                _ actions: inout [Action]) {
        pending = PendingWrite(job: job, candidate: candidate, then: then)
        var batch = batch
        // The audit entry names who gave the command (issue #41): the owner unless an operator did.
        batch.audit = batch.audit?.stamped(by: job.by)
        batch.committedSeed = candidate.committedSeed
        if case .start = then { batch.rolling = RollingStart(rolling: candidate) }
        // The answer the command gets once stored, for stores that keep it beside the records.
        if let seq = job.seq {
            switch then {
            case .start, .stop, .clear, .seal, .signoff:
                batch.answer = BatchAnswer(client: job.client ?? "", seq: seq, reply: CommandReply(ack: ack(job)))
            case .configure(_, let duplicates):
                let extra: [String: JSONValue] = ["duplicates": .array(duplicates.map { .string($0) })]
                batch.answer = BatchAnswer(client: job.client ?? "", seq: seq, reply: CommandReply(ack: ack(job, extra)))
            case .void(_, _, let reason):
                let result = candidate.lastResult?.resultMessage(voidReason: reason)
                batch.answer = BatchAnswer(client: job.client ?? "", seq: seq, reply: CommandReply(ack: ack(job), result: result))
            case .sealVoid, .voidSealing:
                batch.answer = BatchAnswer(client: job.client ?? "", seq: seq, reply: CommandReply(ack: ack(job)))
            case .checkin, .pass, .sealFinished, .replacementSealed, .handover:
                break
            }
        }
        actions.append(.store(batch))
    }

    mutating func stored(_ result: Result<Void, StoreFailure>, at time: Time,
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
                resumed = nil
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
                beaconWait = BeaconWait()
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
                beaconWait = BeaconWait()
                actions.append(.count(.rounds))
                stopMotion(&actions)
                announceBeacon(&actions)
                announcePhase(.stopping, &actions)
                slowDown(at: time, since: ranAt, using: &random, &actions)
            case .sealVoid(let void):
                beaconVoid = void
                beaconWait = BeaconWait()
                succeed(job, CommandReply(ack: ack(job)), &actions)
                announceBeacon(&actions)
                let waiters = revealWaiters
                revealWaiters = []
                for waiter in waiters { deliver(.failure(CommandFailure(code: "beacon_void")), for: waiter, &actions) }
            case .voidSealing(let contributors, let voided):
                if let contributors { frozenMembers = contributors }
                beaconVoid = nil
                beaconWait = BeaconWait()
                succeed(job, CommandReply(ack: ack(job)), &actions)
                if let voided { actions.append(.announce(.void(voided))) }
                announceCheckinWinners(&actions)
                sendVouchers(&actions)
                announceBeacon(&actions)
                requestBeacon(at: time.unixMilliseconds, &actions)
            case .replacementSealed(let reason):
                actions.append(.count(.rounds))
                beaconWait = BeaconWait()
                beaconVoid = nil
                announceBeacon(&actions)
                announceCheckinWinners(&actions)
                if let result = draw.lastResult?.resultMessage(voidReason: reason) { actions.append(.announce(.result(result))) }
                if let commit = draw.commit { actions.append(.announce(.commit(commit))) }
            case .clear:
                lastTick = nil
                succeed(job, CommandReply(ack: ack(job)), &actions)
                actions.append(.announce(.cleared))
                announcePhase(.idle, &actions)
                // The board is empty: what is left and what the next round draws changed.
                if let commit = draw.commit { actions.append(.announce(.commit(commit))) }
            case .configure(let text, let duplicates):
                adoptConfig(text)
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
                sendVouchers(&actions)
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
            case .signoff:
                succeed(job, CommandReply(ack: ack(job)), &actions)
                actions.append(.announce(.signoff(.object([
                    "type": .string("signoff"), "signoffs": .array(draw.signoffs.map(\.pageJSON)),
                    "lockSigned": .bool(draw.lockSignedOff)]))))
            case .pass(let passes):
                actions.append(.count(.commands))
                announceCheckinWinners(&actions)
                passesStored(passes, at: time, &actions)
                sendVouchers(&actions)
            case .handover(let handover):
                handoverStored(handover, job: job, &actions)
            }
        }
        pump(at: time, using: &random, &actions)
        flushJoins(&actions)
    }

    func ack(_ job: Job, _ extra: [String: JSONValue] = [:]) -> JSONValue {
        var members = extra
        members["type"] = .string("ack")
        members["seq"] = job.seq.map { .int($0) } ?? .null
        members["command"] = .string(job.command.name)
        return .object(members)
    }

    mutating func remember(_ job: Job, _ reply: CommandReply) {
        if let seq = job.seq { applied[job.client ?? "", default: SeqLog()].insert(seq, reply) }
    }

    mutating func succeed(_ job: Job, _ reply: CommandReply, _ actions: inout [Action]) {
        actions.append(.count(.commands))
        remember(job, reply)
        deliver(.success(reply), for: job, &actions)
    }

    func deliver(_ outcome: Result<CommandReply, CommandFailure>, for job: Job, _ actions: inout [Action]) {
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
}
