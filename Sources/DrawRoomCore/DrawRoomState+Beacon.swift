import DrawEngine
import JSON

/// One drand round to fetch for a sealed round (docs/FAIRNESS.md §13).
public struct BeaconRequest: Sendable, Equatable {
    public var beaconRound: UInt64
    public var chain: BeaconChain
    public var relays: [String]
    public var allowHTTP: Bool
    /// When R is due, and when this attempt's asking ends (Unix ms).
    public var dueMillis: Int64
    public var deadlineMillis: Int64
    /// `hash` of the round's `beacon` record (an answer for an older lock is dropped).
    public var lockHash: String
    /// When this attempt starts asking (Unix ms, at least `dueMillis`): a retry after a fetch that
    /// got no value waits `DrawRoomState.beaconRetryMillis` first.
    public var startMillis: Int64
    /// Which attempt at R this is: only the latest one's failure counts (a host's retry starts a new one).
    public var attempt: Int
}

/// What fetching R gave: the value (a relay's, its BLS signature checked), or why there is none.
public enum BeaconFetch: Sendable, Equatable {
    case value(randomness: String, signature: String, relays: [String])
    case failed(String)
}

/// A `beaconVoid` as pages see it until the next Stop: since issue #40 only the host's `abandon`.
public struct BeaconVoidShown: Sendable, Equatable {
    public var round: Int
    public var beaconRound: UInt64
    public var reason: String
}

/// The wait for R after an attempt got no value (issue #40: the round keeps its R, never a new one).
struct BeaconWait: Sendable, Equatable {
    /// The latest attempt (`BeaconRequest.attempt`).
    var attempt = 0
    /// Why the previous attempt got no value (the relays' errors), nil before any failed.
    var problem: String?
    /// When the next attempt starts asking (Unix ms), nil while one asks.
    var nextMillis: Int64?
}

/// Beacon-sealed rounds in the room (docs/PROTOCOL.md, "Beacon-sealed rounds"): Stop stores the
/// lock and keeps rolling; the shell fetches drand round R (`fetchBeacon`); its value finishes
/// the round (slow-down, reveal). An attempt that gets no value changes nothing on the record:
/// the round keeps rolling and waiting for the same R, pages say why, and the room asks again
/// (`beaconRetryMillis`, or at once on the host's `beaconRetry`) until R comes, however long that
/// takes; only the host's `beaconAbandon` ends the wait, on the record (a `beaconVoid`).
extension DrawRoomState {
    /// Pauses before asking again after attempt n failed: 10 s, 20 s, then every 30 s.
    static func beaconRetryMillis(after attempt: Int) -> Int64 {
        Int64(min(attempt + 1, 3)) * 10_000
    }

    /// `{"type":"beacon","round","beaconRound","status":"waiting"|"sealed"|"void","reason","lock","index","prev","due","retryAt"}`
    /// (and `"replacement":true` while a void's replacement waits):
    /// while waiting, `lock`, `index` and `prev` are the `beacon` record's head (pages' witnesses
    /// keep it and flag a chain where that record differs, FAIRNESS §13/§14) and `due` when R is
    /// due (Unix ms); `reason` why the latest attempt got no value (nil before any failed), `retryAt`
    /// when the next attempt starts (Unix ms, nil while one asks).
    var beaconJSON: JSONValue {
        if let lock = draw.sealing {
            var members: [String: JSONValue] = ["type": .string("beacon"), "round": .int(Int64(lock.lock.round)),
                            "beaconRound": .int(Int64(lock.beaconRound)), "status": .string("waiting"),
                            "reason": beaconWait.problem.map { .string($0) } ?? .null,
                            "lock": draw.sealingHash.map { .string($0) } ?? .null,
                            "index": draw.sealingPlace.map { .int(Int64($0.index)) } ?? .null,
                            "prev": draw.sealingPlace.map { .string($0.prev) } ?? .null,
                            "due": .int(lock.chain.dueMillis(of: lock.beaconRound)),
                            "retryAt": beaconWait.nextMillis.map { .int($0) } ?? .null]
            // A void's replacement waits for its own drand round (FAIRNESS §13, "Voids").
            if draw.sealingReplacement { members["replacement"] = .bool(true) }
            return .object(members)
        }
        if let sealed = lastSealed, sealed.round == draw.lastRound, draw.phase != .rolling {
            return .object(["type": .string("beacon"), "round": .int(Int64(sealed.round)), "beaconRound": .int(Int64(sealed.beaconRound)),
                            "status": .string("sealed"), "reason": .null])
        }
        if let void = beaconVoid, draw.phase == .rolling {
            return .object(["type": .string("beacon"), "round": .int(Int64(void.round)), "beaconRound": .int(Int64(void.beaconRound)),
                            "status": .string("void"), "reason": .string(void.reason)])
        }
        return .null
    }

    mutating func announceBeacon(_ actions: inout [Action]) {
        let message = beaconJSON
        guard !message.isNull else { return }
        actions.append(.announce(.beacon(message)))
    }

    /// A new attempt at R, asking from `startAt` (at least R's due time) for the wait limit (a
    /// round resumed after a restart asks from then: R's value is fetched afresh, never replaced).
    mutating func requestBeacon(at now: Int64, startAt: Int64? = nil, _ actions: inout [Action]) {
        guard let lock = draw.sealing, let hash = draw.sealingHash else { return }
        let beacon = settings.beacon
        let due = lock.chain.dueMillis(of: lock.beaconRound)
        let start = max(due, startAt ?? now)
        beaconWait.attempt += 1
        beaconWait.nextMillis = start > max(due, now) ? start : nil
        actions.append(.fetchBeacon(BeaconRequest(beaconRound: lock.beaconRound, chain: lock.chain, relays: lock.relays,
                                                  allowHTTP: beacon.allowHTTP, dueMillis: due,
                                                  deadlineMillis: max(due, start, now) + beacon.waitMillis, lockHash: hash,
                                                  startMillis: start, attempt: beaconWait.attempt)))
    }

    /// R's outcome, when no write is in flight: store the value and its round; or, with no valid
    /// value, keep waiting for the same R and ask again later (nothing stored).
    mutating func sealed(_ request: BeaconRequest, _ outcome: BeaconFetch, skipped: [String], at time: Time,
                         using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        guard draw.sealingHash == request.lockHash, let lock = draw.sealing else { return }
        let job = Job(command: .stop, seq: nil, client: nil, awaitReveal: false, target: .server)
        let now = time.unixMilliseconds
        var reason: String
        switch outcome {
        case .value(let randomness, let signature, let relays):
            var candidate = draw
            do {
                let records = try candidate.finishSealed(randomness: randomness, signature: signature, relays: relays, at: now,
                                                         nextSeed: .random(using: &random))
                // Relays skipped for an invalid value stay on the record of the round (audit log).
                let entry = AuditEntry(actor: "system", action: "beacon", detail: .object([
                    "round": .int(Int64(lock.lock.round)), "beaconRound": .int(Int64(lock.beaconRound)),
                    "attempts": .int(Int64(beaconWait.attempt)), "skipped": .array(skipped.map { .string($0) })]))
                if let replaces = lock.lock.replaces {
                    // A void's replacement (FAIRNESS §13, "Voids"): revealed at once, as an unsealed one is.
                    let reason = draw.board.first { $0.round == replaces.round }?.voided.last { $0.winner == replaces.winner }?.reason
                    write(RecordBatch(command: "void", records: records, audit: entry), job: job, candidate: candidate,
                          then: .replacementSealed(reason: reason), &actions)
                    return
                }
                write(RecordBatch(command: "stop", records: records, audit: entry), job: job, candidate: candidate,
                      then: .sealFinished(ranAt: time.instant, beaconRound: lock.beaconRound), &actions)
                return
            } catch {
                reason = "drand round \(lock.beaconRound): the value does not check"
            }
        case .failed(let why):
            reason = why
        }
        // Only the latest attempt's failure counts: an older one's was overtaken by a retry.
        guard request.attempt == beaconWait.attempt else { return }
        beaconWait.problem = reason
        requestBeacon(at: now, startAt: now + Self.beaconRetryMillis(after: beaconWait.attempt - 1), &actions)
        actions.append(.logError("draw \(code) round \(lock.lock.round): drand round \(lock.beaconRound) not fetched yet "
                                 + "(attempt \(beaconWait.attempt - 1): \(reason)); the round waits for it and asks again"))
        snapshots = [:]
        announceBeacon(&actions)
        // A Stop waiting for the reveal hears that R has not come: the round goes on waiting.
        let waiters = revealWaiters
        revealWaiters = []
        for waiter in waiters { deliver(.failure(CommandFailure(code: "beacon_waiting")), for: waiter, &actions) }
    }

    /// The host's `beaconRetry`: ask for R now (no record; the wait goes on until R comes).
    mutating func retryBeacon(_ job: Job, at time: Time, _ actions: inout [Action]) {
        guard draw.sealing != nil else {
            actions.append(.count(.refusedCommands))
            deliver(.failure(CommandFailure(code: "wrong_phase")), for: job, &actions)
            return
        }
        requestBeacon(at: time.unixMilliseconds, &actions)
        snapshots = [:]
        announceBeacon(&actions)
        succeed(job, CommandReply(ack: ack(job, ["attempt": .int(Int64(beaconWait.attempt))])), &actions)
    }

    /// The host's `beaconAbandon`: gives up on R on the record (a `beaconVoid` with the host's
    /// reason). Once R is public, `tombola verify` shows the winners it would have drawn.
    mutating func abandonBeacon(_ job: Job, reason: String, at time: Time, _ actions: inout [Action]) throws(DrawError) {
        guard let lock = draw.sealing else { throw .wrongPhase }
        guard (1...DrawLimits.maxReasonLength).contains(reason.count), !EntrantList.hasControlCharacter(reason) else { throw .badReason }
        var candidate = draw
        let entry = AuditEntry(actor: "host", action: "beaconAbandon", detail: .object([
            "round": .int(Int64(lock.lock.round)), "beaconRound": .int(Int64(lock.beaconRound)), "reason": .string(reason),
            "lastProblem": beaconWait.problem.map { .string($0) } ?? .null]))
        if draw.sealingReplacement {
            // A replacement has no Stop to press: a later drand round seals it at once, under the same lock.
            let beacon = settings.beacon
            let records = try candidate.abandonReplacementSeal(reason: "abandoned by the host: " + reason, chain: beacon.chain,
                                                               relays: beacon.relays, at: time.unixMilliseconds)
            write(RecordBatch(command: job.command.name, records: records, audit: entry), job: job, candidate: candidate,
                  then: .voidSealing(contributors: nil, voided: nil), &actions)
            return
        }
        let record = try candidate.voidSealed(reason: "abandoned by the host: " + reason, at: time.unixMilliseconds)
        guard case .beaconVoid(_, _, let stored) = record.body else { throw .wrongPhase }
        write(RecordBatch(command: job.command.name, records: [record], audit: entry), job: job, candidate: candidate,
              then: .sealVoid(BeaconVoidShown(round: lock.lock.round, beaconRound: lock.beaconRound, reason: stored)), &actions)
    }
}
