import DrawEngine
import JSON

/// One drand round to fetch for a sealed round (docs/FAIRNESS.md §13).
public struct BeaconRequest: Sendable, Equatable {
    public var beaconRound: UInt64
    public var chain: BeaconChain
    public var relays: [String]
    public var allowHTTP: Bool
    /// When R is due, and when waiting for it ends (Unix ms).
    public var dueMillis: Int64
    public var deadlineMillis: Int64
    /// `hash` of the round's `beacon` record (an answer for an older lock is dropped).
    public var lockHash: String
}

/// What fetching R gave: the value the relays agreed on, or why there is none.
public enum BeaconFetch: Sendable, Equatable {
    case value(randomness: String, signature: String, relays: [String])
    case failed(String)
}

/// A `beaconVoid` as pages see it until the next Stop.
public struct BeaconVoidShown: Sendable, Equatable {
    public var round: Int
    public var beaconRound: UInt64
    public var reason: String
}

/// Beacon-sealed rounds in the room (docs/PROTOCOL.md, "Beacon-sealed rounds"): Stop stores the
/// lock and keeps rolling; the shell fetches drand round R (`fetchBeacon`); its value finishes
/// the round (slow-down, reveal), a failure voids the seal and the round keeps rolling.
extension DrawRoomState {
    /// `{"type":"beacon","round","beaconRound","status":"waiting"|"sealed"|"void","reason"}`.
    var beaconJSON: JSONValue {
        if let lock = draw.sealing {
            return .object(["type": .string("beacon"), "round": .int(Int64(lock.lock.round)),
                            "beaconRound": .int(Int64(lock.beaconRound)), "status": .string("waiting"), "reason": .null])
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

    /// The wait limit runs from R's due time, or from `now` when that is later (a round resumed
    /// after a restart: R's value is fetched afresh, never replaced).
    func requestBeacon(at now: Int64, _ actions: inout [Action]) {
        guard let lock = draw.sealing, let hash = draw.sealingHash else { return }
        let beacon = settings.beacon
        let due = lock.chain.dueMillis(of: lock.beaconRound)
        actions.append(.fetchBeacon(BeaconRequest(beaconRound: lock.beaconRound, chain: lock.chain, relays: lock.relays,
                                                  allowHTTP: beacon.allowHTTP, dueMillis: due,
                                                  deadlineMillis: max(due, now) + beacon.waitMillis, lockHash: hash)))
    }

    /// R's outcome, when no write is in flight: store the value and its round, or the void.
    mutating func sealed(_ request: BeaconRequest, _ outcome: BeaconFetch, at time: Time,
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
                let entry = AuditEntry(actor: "system", action: "beacon", detail: .object([
                    "round": .int(Int64(lock.lock.round)), "beaconRound": .int(Int64(lock.beaconRound))]))
                write(RecordBatch(command: "stop", records: records, audit: entry), job: job, candidate: candidate,
                      then: .sealFinished(ranAt: time.instant, beaconRound: lock.beaconRound), &actions)
                return
            } catch {
                reason = "drand round \(lock.beaconRound): the value does not check"
            }
        case .failed(let why):
            reason = why
        }
        var candidate = draw
        guard let record = try? candidate.voidSealed(reason: reason, at: now) else { return }
        let entry = AuditEntry(actor: "system", action: "beaconVoid", detail: .object([
            "round": .int(Int64(lock.lock.round)), "beaconRound": .int(Int64(lock.beaconRound)), "reason": .string(reason)]))
        write(RecordBatch(command: "stop", records: [record], audit: entry), job: job, candidate: candidate,
              then: .sealVoid(BeaconVoidShown(round: lock.lock.round, beaconRound: lock.beaconRound, reason: reason)), &actions)
    }
}
