import JSON

/// The outcome of rechecking one record.
public struct RecordCheck: Sendable, Equatable {
    public let index: Int
    public let kind: String
    public let round: Int?
    /// nil when the record checks.
    public let problem: String?
    /// Remarks that are not failures (an abandoned commitment).
    public let notes: [String]

    public var ok: Bool { problem == nil }

    /// `#3 round 2: OK` or `#3 round 2: FAIL: <problem>`, as the Python script prints.
    public var line: String {
        "#\(index) \(kind)" + (round.map { " \($0)" } ?? "") + (problem.map { ": FAIL: \($0)" } ?? ": OK")
    }
}

public struct VerificationReport: Sendable, Equatable {
    public let code: String?
    public let checks: [RecordCheck]
    /// A problem of the whole chain (a void never followed by its replacement).
    public let chainProblem: String?

    public var passed: Bool { chainProblem == nil && checks.allSatisfy(\.ok) }
    public var roundCount: Int { checks.filter { $0.kind == "round" }.count }
    /// The algorithms the rounds were drawn with (v1 when there is no round).
    public let algorithms: [String]
    /// The drand rounds whose values sealed rounds (docs/FAIRNESS.md §13).
    public var beaconRounds: [UInt64] = []
    /// Each `beaconValue` record with its lock's chain: what `tombola verify` checks the BLS
    /// signature of (the pairing is not part of this engine: ClusterCore and pages recheck
    /// records without it).
    public var beaconValues: [BeaconValueToCheck] = []
    /// Each drand round given up on the record, with what it would have drawn once public (issue #40).
    public var abandonedSeals: [AbandonedSeal] = []
}

/// A sealed round's drand value and the chain its lock names.
public struct BeaconValueToCheck: Sendable, Equatable {
    /// The `beaconValue` record's index.
    public let index: Int
    public let chain: BeaconChain
    public let beaconRound: UInt64
    public let signature: String
}

/// Rechecks exported records exactly as docs/FAIRNESS.md §7 says (and its Python script does).
public enum RoundVerifier {
    /// Reads `{"records":[…], …}` (an export). Throws when it is not JSON with a records array.
    public static func verify(exportText: String) throws(RecordError) -> VerificationReport {
        let export: JSONValue
        do { export = try JSONValue.parse(exportText) } catch { throw RecordError(reason: "not JSON (offset \(error.offset))") }
        guard let records = export["records"]?.arrayValue else { throw RecordError(reason: "no records array") }
        return verify(records: records, code: export["code"]?.stringValue)
    }

    public static func verify(records: [JSONValue], code: String? = nil) -> VerificationReport {
        var state = ChainState()
        var checks = [RecordCheck]()
        var algorithms = [String]()
        for (position, json) in records.enumerated() {
            let kind = json["kind"]?.stringValue ?? "?"
            let round = json["round"]?.intValue.flatMap { Int(exactly: $0) }
            if kind == "round", let algorithm = json["algorithm"]?.stringValue, !algorithms.contains(algorithm) {
                algorithms.append(algorithm)
            }
            var notes = [String]()
            var problem: String? = nil
            do {
                try state.check(json, at: position, notes: &notes)
            } catch {
                problem = error.reason
                state.prev = json["hash"]?.stringValue ?? state.prev
            }
            checks.append(RecordCheck(index: position, kind: kind, round: round, problem: problem, notes: notes))
        }
        var report = VerificationReport(code: code, checks: checks,
                                        chainProblem: state.pendingVoid == nil ? nil : "void without replacement",
                                        algorithms: algorithms.isEmpty ? [Fairness.algorithm] : algorithms)
        report.beaconRounds = state.beaconRounds
        report.beaconValues = state.beaconValues
        report.abandonedSeals = state.abandonedSeals
        return report
    }
}

private struct ChainState {
    var prev = DrawRecord.genesisPrev
    var pending: String?
    var pendingVoid: DrawRecord?
    var lastRound = 0
    var session = [Int: [DrawValue]]()
    var ever = Set<DrawValue>()
    var voided = Set<DrawValue>()
    /// Claims (§15): each round's alternates and how many passes used them.
    var alternates = [Int: (list: [DrawValue], used: Int)]()
    var lists = [String: (names: [String], tickets: [UInt64]?, groups: [String]?)]()
    /// Base index of each name, per list hash, built on the first round that needs it.
    var nameIndices = [String: [DrawValue: Int64]]()
    /// The `lock` record the next `round` must match (export format v2), and whether the chain has had one.
    var pendingLock: LockRecord?
    /// The program the latest `commit` record named (issue #47).
    var lastSoftware: SoftwareIdentity?
    var lockSeen = false
    /// A `beaconVoid` came since `pendingLock` (an export from before locks were stored at Start
    /// stores a new lock at the next Stop: not an abandoned roll).
    var relockAfterVoid = false
    /// Each round of the session's prize tier (`prizeIndex`, `prize`), to recompute what is left in it.
    var sessionPrize = [Int: LockCheck.Tier]()
    /// Whether the session's rounds are rehearsal rounds (nil: none yet); docs/FAIRNESS.md §19.
    var sessionRehearsal: Bool?
    /// Entry tree roots, per list hash.
    var roots = [String: String]()
    /// A `beacon` record not yet followed by its round or void, and its value once stored (§13).
    var beacon: (hash: String, at: Int64, lock: BeaconLock)?
    var beaconValue: BeaconSealValue?
    var beaconRounds = [UInt64]()
    var beaconValues = [BeaconValueToCheck]()
    var abandonedSeals = [AbandonedSeal]()
    /// Every record's hash by index, for sign-offs' targets (§20).
    var hashes = [String]()
    /// Lock sign-offs of the next round: its pool lock as the observer signed it (§20).
    var lockSignoffs = [(observer: String, round: Int, poolHash: String)]()
    /// The note a reverse raffle's round gives (§21), set by `checkRound`.
    var reverseNote: String?

    mutating func check(_ json: JSONValue, at position: Int, notes: inout [String]) throws(RecordError) {
        func require(_ condition: Bool, _ reason: String) throws(RecordError) {
            if !condition { throw RecordError(reason: reason) }
        }
        try require(json["v"]?.intValue == 1 && json["index"]?.intValue == Int64(position) && json["prev"]?.stringValue == prev,
                    "chain broken")
        let record = try DrawRecord(json: json)
        try require(record.computedHash == record.hash, "record hash")
        // A sealed draw's replacement waits for its own drand round (§13, "Voids"): its beacon records come between.
        try require(pendingVoid == nil || ["round", "entrants", "lock", "beacon", "beaconValue", "beaconVoid"].contains(record.kind),
                    "void without replacement")
        try require(pendingLock == nil || LockCheck.mayFollowLock.contains(record.kind), LockCheck.lockWithoutRound)
        try require(beacon == nil || ["beaconValue", "beaconVoid", "round"].contains(record.kind), "beacon round without its value")
        prev = record.hash
        hashes.append(record.hash)
        switch record.body {
        case .beacon(let lock):
            try checkBeacon(lock, at: record.at)
            if let pendingLock {
                try require(pendingLock.round == lock.lock.round && pendingLock.poolHash == lock.lock.poolHash
                            && pendingLock.commitment == lock.lock.commitment, LockCheck.lockMismatch)
            } else {
                try require(!lockSeen, LockCheck.roundWithoutLock)
            }
            beacon = (record.hash, record.at, lock)
        case .beaconValue(let value):
            guard let waiting = beacon, beaconValue == nil else { throw RecordError(reason: "beacon value without its lock") }
            try require(value.lock == waiting.hash && value.beaconRound == waiting.lock.beaconRound && value.round == waiting.lock.lock.round,
                        "beacon value of another lock")
            try require(Hex.isLowercase(value.randomness, byteCount: 32)
                        && BeaconSeal.randomnessMatches(randomness: value.randomness, signature: value.signature),
                        "randomness is not SHA-256(signature)")
            try require(!value.relays.isEmpty, "relays")
            beaconValue = value
            beaconRounds.append(value.beaconRound)
            beaconValues.append(BeaconValueToCheck(index: position, chain: waiting.lock.chain, beaconRound: value.beaconRound,
                                                   signature: value.signature))
        case .beaconVoid(let round, let beaconRound, let reason):
            guard let waiting = beacon, beaconValue == nil else { throw RecordError(reason: "beacon void without its lock") }
            try require(round == waiting.lock.lock.round && beaconRound == waiting.lock.beaconRound && !reason.isEmpty, "beacon void")
            notes.append("drand round \(beaconRound) voided: \(reason)")
            var entrants: (names: [String], tickets: [UInt64]?, groups: [String]?)? = nil
            if case .list(_, let hash, _, _, _) = waiting.lock.lock.pool { entrants = lists[hash] }
            abandonedSeals.append(AbandonedSeal(index: position, reason: reason, beaconRound: beaconRound, chain: waiting.lock.chain,
                                                lockHash: waiting.hash, lock: waiting.lock, entrants: entrants?.names,
                                                tickets: entrants?.tickets))
            beacon = nil
            // The round keeps its lock (stored at Start): the next Stop seals a new drand round.
            // (Before locks were stored at Start, that Stop stored a new lock too: a lock after a lock.)
            relockAfterVoid = true
        case .commit(let commitment, let reason):
            // Which program wrote it (issue #47): said at the first commit and whenever it changes,
            // which only a restart (a new process, or a cluster's new owner) may do (§16).
            if lastSoftware != nil, record.software != lastSoftware {
                try require(reason == .restart, "program changed without a restart")
            }
            if let software = record.software, software != lastSoftware {
                notes.append("written by \(software.summary)")
                lastSoftware = software
            }
            if let abandoned = pendingLock {
                // Only a restart commits while a lock waits for its round (the roll was cut short).
                try require(reason == .restart, LockCheck.lockWithoutRound)
                notes.append(LockCheck.abandonedNote(abandoned))
                pendingLock = nil
            }
            if let pending { notes.append("commitment \(pending.prefix(8))… abandoned") }
            pending = commitment
        case .entrants(let hash, let names, let tickets, let groups, let books):
            try require(EntrantList.hash(names: names, tickets: tickets, groups: groups, books: books) == hash, "entrantsHash")
            // Ticket books (FAIRNESS.md §3): valid books whose tickets, in order, are the names; never weighted or grouped.
            try require(books.map { TicketBook.matches($0, names: names) && tickets == nil && groups == nil } ?? true, "books")
            try require(tickets.map { $0.count == names.count } ?? true, "tickets")
            try require(groups.map { $0.count == names.count } ?? true, "groups")
            lists[hash] = (names, tickets, groups)
        case .lock(let lock):
            try require(pending != nil && lock.commitment == pending, LockCheck.lockCommitment)
            if lock.round == lastRound + 1 { noteSignedLocks(lock, notes: &notes) }
            if let earlier = pendingLock {
                // A Start again after its roll was cut short (the same round, the same commitment).
                try require(earlier.round == lock.round && pendingVoid == nil, LockCheck.lockWithoutRound)
                if !relockAfterVoid { notes.append(LockCheck.abandonedNote(earlier)) }
            }
            pendingLock = lock
            relockAfterVoid = false
            lockSeen = true
        case .round(let round):
            defer { pendingLock = nil }
            if pendingLock == nil {
                try require(!lockSeen, LockCheck.roundWithoutLock)
                notes.append(LockCheck.unlockedNote)
            }
            var key: Seed? = nil
            if let waiting = beacon {
                guard let value = beaconValue else { throw RecordError(reason: "beacon round without its value") }
                let unsealed = RoundRecord(
                    round: round.round, prize: round.prize, prizeIndex: round.prizeIndex, algorithm: round.algorithm, pool: round.pool,
                    poolHash: round.poolHash, eligible: round.eligible, repeats: round.repeats, contributions: round.contributions,
                    audience: round.audience, entropy: round.entropy, commitment: round.commitment, seed: round.seed, winners: [],
                    replaces: round.replaces, rehearsal: round.rehearsal)
                // Alternates come from the beacon key with the winners (§15): not a lock field (a lock
                // written before issue #40 holds `"alternates":[]`).
                var locked = waiting.lock.lock
                locked.alternates = nil
                try require(unsealed == locked && round.winners.count == waiting.lock.count, "round differs from its beacon lock")
                key = BeaconSeal.key(lockHash: waiting.hash, randomness: value.randomness)
            }
            // §19: a session holds rehearsal rounds or real ones, never both.
            try require(sessionRehearsal == nil || sessionRehearsal == round.rehearsal, RehearsalRules.mixed)
            sessionRehearsal = round.rehearsal
            if round.rehearsal { notes.append("REHEARSAL: round \(round.round) is a rehearsal, not a real draw") }
            try checkRound(round, rawPool: json["pool"]!, key: key)
            if let note = reverseNote { notes.append(note); reverseNote = nil }
            beacon = nil
            beaconValue = nil
        case .void(let round, let winner, _):
            var won = session[round] ?? []
            try require(won.contains(winner) && !voided.contains(winner), "voided winner not a current winner")
            won.remove(at: won.firstIndex(of: winner)!)
            session[round] = won
            voided.insert(winner)
            pendingVoid = record
        case .pass(let round, let winner, let alternate, _):
            try checkPass(round: round, winner: winner, alternate: alternate)
        case .signoff(let signoff):
            try checkSignoff(signoff, at: position, notes: &notes)
        case .clear(let rehearsal):
            // A wipe (§19) ends a session of rehearsal rounds only: it never discards a real round.
            try require(!rehearsal || sessionRehearsal == true, RehearsalRules.wipeOfReal)
            sessionRehearsal = nil
            sessionPrize = [:]
            session = [:]
            ever = []
            voided = []
        }
    }

    /// A `beacon` record (§13): the lock uses the pending commitment (its seed revealed), R is due at
    /// least the margin after the lock was stored, the chain is well-formed. Its other fields are
    /// rechecked with the round that follows (they must be equal).
    func checkBeacon(_ b: BeaconLock, at: Int64) throws(RecordError) {
        func require(_ condition: Bool, _ reason: String) throws(RecordError) {
            if !condition { throw RecordError(reason: reason) }
        }
        try require(pending != nil && b.lock.commitment == pending, "commitment not published before")
        guard let seedBytes = Hex.decode(b.lock.seed), let seed = Seed(bytes: seedBytes), seed.commitment == b.lock.commitment else {
            throw RecordError(reason: "seed does not match commitment")
        }
        try require(b.chain.isWellFormed, "chain")
        try require(b.chain.dueMillis(of: b.beaconRound) >= at + BeaconSeal.lockMarginMillis, "drand round due before the lock")
        // Exactly the first round due the margin after the lock (issue #40): a later R would let a
        // server that waited see several values and pick the lock time that maps to the one it likes.
        try require(b.beaconRound == BeaconSeal.round(of: b.chain, lockedAt: at), "drand round later than the first due after the lock")
        try require(!b.relays.isEmpty && b.count >= 1, "beacon lock")
        if let void = pendingVoid, case .void(let round, let winner, _) = void.body {
            // A void's replacement, sealed by its own drand round: one winner, replacing that void.
            try require(b.lock.replaces == Replacement(round: round, winner: winner, void: void.hash) && b.lock.round == round
                        && b.count == 1, "beacon lock")
        } else {
            try require(b.lock.replaces == nil && b.lock.round == lastRound + 1, "beacon lock")
        }
    }

    mutating func checkRound(_ r: RoundRecord, rawPool: JSONValue, key: Seed? = nil) throws(RecordError) {
        func require(_ condition: Bool, _ reason: String) throws(RecordError) {
            if !condition { throw RecordError(reason: reason) }
        }
        try require(r.algorithm == Fairness.algorithm || r.algorithm == Fairness.weightedAlgorithm, "unknown algorithm")
        try require(pending != nil && r.commitment == pending, "commitment not published before")
        guard let seedBytes = Hex.decode(r.seed), let seed = Seed(bytes: seedBytes), seed.commitment == r.commitment else {
            throw RecordError(reason: "seed does not match commitment")
        }
        try require(Hashing.sha256Hex(rawPool.canonicalBytes) == r.poolHash, "poolHash")
        try require(Self.isClosed(rawPool, r.pool), "pool schema")
        let contributions = r.contributions.compactMap { Hex.isLowercase($0, byteCount: 16) ? Contribution(hex: $0) : nil }
        try require(contributions.count == r.contributions.count && zip(contributions, contributions.dropFirst()).allSatisfy { $0 < $1 },
                    "contributions")
        try require(r.audience?.utf8.allSatisfy { $0 < 0x80 } ?? true, "audience")
        let entropy = Fairness.entropyDigest(contributions: contributions, audience: r.audience)
        try require(Hex.encode(entropy) == r.entropy, "entropy digest")
        var entrants: [String]? = nil
        var tickets: [UInt64]? = nil
        var groups: [String]? = nil
        var filter: GroupFilter? = nil
        if case .list(let count, let hash, let removed, let groupFilter, let exclusions) = r.pool {
            // Each draw's exclusions are part of `removed` (docs/FAIRNESS.md §3, "Winners of other draws").
            let all = Set(removed)
            for exclusion in exclusions {
                try require(exclusion.head.count == 64 && Hex.isLowercase(exclusion.head, byteCount: 32)
                            && zip(exclusion.removed, exclusion.removed.dropFirst()).allSatisfy { $0 < $1 }
                            && exclusion.removed.allSatisfy(all.contains), "pastWinners")
            }
            guard let list = lists[hash] else { throw RecordError(reason: "entrant list missing") }
            try require(list.names.count == count, "entrant count")
            entrants = list.names
            tickets = list.tickets
            groups = list.groups
            filter = groupFilter
        }
        try require(r.algorithm == (tickets == nil ? Fairness.algorithm : Fairness.weightedAlgorithm), "algorithm does not fit the pool")
        guard let pool = EligiblePool(spec: r.pool, entrants: entrants) else { throw RecordError(reason: "removed set") }
        let n = pool.count
        try require(n == r.eligible && !r.winners.isEmpty && UInt64(r.winners.count) <= n, "eligible count")
        let drawn = r.winners.count + (r.alternates?.count ?? 0)
        try require(r.alternates == nil || (r.replaces == nil && pendingVoid == nil && UInt64(drawn) <= n), ClaimRules.replacementAlternates)
        try require(pendingVoid == nil || r.winners.count == 1, RoundRules.replacementCount)
        // §21, rule V1: a reverse raffle's round draws out between one and all but one, nothing else.
        if r.reverse || r.lastIn != nil {
            try require(r.reverse && r.prize == nil && r.prizeIndex == nil && !r.repeats && r.alternates == nil && r.replaces == nil
                        && pendingVoid == nil && r.algorithm == Fairness.algorithm && UInt64(r.winners.count) < n, ReverseRules.shape)
        }
        try checkRemoved(r)
        if let filter {
            let indices = pool.eligibleIndices()
            try require(indices.allSatisfy { filter.admits(groups?[$0] ?? "") }, "ineligible group in pool")
        }
        if let lock = pendingLock {
            var root: String? = nil
            if case .list(_, let hash, _, _, _) = r.pool, let entrants {
                if roots[hash] == nil { roots[hash] = EntryTree.root(names: entrants, tickets: tickets, groups: groups) }
                root = roots[hash]
            }
            try LockCheck.check(lock, round: r, n: n, root: root, expectedRemoved: expectedRemoved(r, lock: lock, filter: filter, groups: groups),
                                awarded: r.replaces == nil ? awarded(r) : nil)
        }
        let positions: [UInt64]
        if let tickets {
            positions = Fairness.weightedPositions(seed: key ?? seed, round: r.round, poolHash: Hex.decode(r.poolHash)!, entropy: entropy,
                                                   weights: pool.eligibleIndices().map { tickets[$0] }, count: drawn)
        } else {
            positions = Fairness.winnerPositions(seed: key ?? seed, round: r.round, poolHash: Hex.decode(r.poolHash)!,
                                                 entropy: entropy, eligible: n, count: drawn)
        }
        let picked = positions.map(pool.element(at:))
        let recomputed = Array(picked.prefix(r.winners.count))
        try require(recomputed == r.winners, "winners differ: recomputed \(recomputed.map(\.description))")
        if let listed = r.alternates {
            let next = Array(picked.dropFirst(r.winners.count))
            try require(next == listed, ClaimRules.alternatesDiffer + ": recomputed \(next.map(\.description))")
        }
        try checkReverse(r, pool: pool)
        let winners = Set(r.winners)
        if let void = pendingVoid, case .void(let round, let winner, _) = void.body {
            try require(r.replaces == Replacement(round: round, winner: winner, void: void.hash) && r.round == round, "replacement")
            try require(winners.isDisjoint(with: session[round] ?? []), "replacement repeats its round")
        } else {
            try require(r.replaces == nil && r.round == lastRound + 1, "round number")
            lastRound = r.round
            session[r.round] = []
            sessionPrize[r.round] = LockCheck.Tier(index: r.prizeIndex, name: r.prize)
            alternates[r.round] = r.alternates.map { ($0, 0) }
        }
        try require(r.repeats || winners.isDisjoint(with: ever), "repeat winner")
        try require(winners.isDisjoint(with: voided), "voided winner drawn again")
        session[r.round, default: []] += r.winners
        ever.formUnion(winners)
        pending = nil
        pendingVoid = nil
    }

    /// The current winners of this session's rounds of the round's prize tier (index and name).
    func awarded(_ r: RoundRecord) -> Int {
        let tier = LockCheck.Tier(index: r.prizeIndex, name: r.prize)
        return sessionPrize.filter { $0.value == tier }.keys.reduce(0) { $0 + (session[$1]?.count ?? 0) }
    }

    /// Every position rules 1–6 of §3 put out, with the lock's host exclusions as rule 1.
    func expectedRemoved(_ r: RoundRecord, lock: LockRecord, filter: GroupFilter?, groups: [String]?) -> Set<Int64> {
        var out = Set(lock.hostExcluded)
        let values = voided.union(r.repeats ? [] : ever).union(pendingVoid.flatMap { void -> [DrawValue]? in
            if case .void(let round, _, _) = void.body { return session[round] }
            return nil
        } ?? [])
        switch r.pool {
        case .range(let from, let to, _):
            for case .number(let n) in values where n >= from && n <= to { out.insert(n) }
        case .list(let count, let hash, _, _, let past):
            let index = nameIndices[hash] ?? [:]
            for value in values { if let p = index[value] { out.insert(p) } }
            if let filter {
                for i in 0..<count where !filter.admits(groups?[i] ?? "") { out.insert(Int64(i)) }
            }
            for exclusion in past { out.formUnion(exclusion.removed) }
        }
        return out.subtracting(r.winners.compactMap { winner in
            switch (r.pool, winner) {
            case (.range, .number(let n)): n
            case (.list(_, let hash, _, _, _), _): nameIndices[hash]?[winner]
            default: nil
            }
        })
    }

    /// A pass (§15): the winner is a current winner of the latest round, and the win goes to the
    /// round's next unused alternate (none when every one was used), who is not a winner already.
    mutating func checkPass(round: Int, winner: DrawValue, alternate: DrawValue?) throws(RecordError) {
        func require(_ condition: Bool, _ reason: String) throws(RecordError) {
            if !condition { throw RecordError(reason: reason) }
        }
        var won = session[round] ?? []
        try require(round == lastRound && won.contains(winner) && !voided.contains(winner), ClaimRules.passedNotCurrent)
        let entry = alternates[round] ?? ([], 0)
        let next = entry.used < entry.list.count ? entry.list[entry.used] : nil
        try require(alternate == next, ClaimRules.notNextAlternate)
        if let alternate {
            try require(!won.contains(alternate) && !voided.contains(alternate), ClaimRules.alternateTaken)
            won[won.firstIndex(of: winner)!] = alternate
            ever.insert(alternate)
        } else {
            won.remove(at: won.firstIndex(of: winner)!)
        }
        session[round] = won
        voided.insert(winner)
        alternates[round] = (entry.list, entry.used + 1)
    }

    /// The pool object is closed (docs/FAIRNESS.md §3): it reads back as exactly what was parsed
    /// (no other key, here or in `pastWinners`), and its group lists are sorted, distinct and hold
    /// no empty name.
    static func isClosed(_ raw: JSONValue, _ pool: PoolSpec) -> Bool {
        guard pool.json.canonicalBytes == raw.canonicalBytes else { return false }
        guard case .list(_, _, _, let filter?, _) = pool else { return true }
        return [filter.only, filter.except].allSatisfy { names in
            !names.contains("") && zip(names, names.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
    }

    /// Rules 2–4 of docs/FAIRNESS.md §3, recomputed from the chain: `removed` holds every winner
    /// voided since the Clear, every winner since the Clear when repeats are off, and for a
    /// replacement the round's current winners (each one that is an element of this pool).
    mutating func checkRemoved(_ r: RoundRecord) throws(RecordError) {
        let position: (DrawValue) -> Int64?
        let removed: [Int64]
        switch r.pool {
        case .range(let from, let to, let values):
            removed = values
            position = { value in
                if case .number(let n) = value, n >= from, n <= to { return n }
                return nil
            }
        case .list(_, let hash, let indices, _, _):
            removed = indices
            if nameIndices[hash] == nil, let names = lists[hash]?.names {
                var index = [DrawValue: Int64](minimumCapacity: names.count)
                for (i, name) in names.enumerated() { index[.name(name)] = Int64(i) }
                nameIndices[hash] = index
            }
            let index = nameIndices[hash] ?? [:]
            position = { index[$0] }
        }
        // The round's own winners are never required out: a repeat is reported as one (step 5).
        let own = Set(r.winners)
        func requireOut(_ values: some Sequence<DrawValue>, _ rule: String) throws(RecordError) {
            for value in values where !own.contains(value) {
                if let p = position(value), !RoundRules.sortedContains(removed, p) { throw RecordError(reason: rule) }
            }
        }
        try requireOut(voided, RoundRules.voidedInPool)
        if !r.repeats { try requireOut(ever, RoundRules.earlierWinnerInPool) }
        if let void = pendingVoid, case .void(let round, _, _) = void.body {
            try requireOut(session[round] ?? [], RoundRules.roundWinnerInPool)
        }
    }
}

/// The reasons a verifier gives for the rules the chain proves about `removed` and `k`; the
/// script of docs/FAIRNESS.md §12 and the pages' recheck print the same words.
enum RoundRules {
    static let voidedInPool = "removed misses a voided winner (rule 2)"
    static let earlierWinnerInPool = "removed misses an earlier winner, repeats off (rule 3)"
    static let roundWinnerInPool = "removed misses a winner of the replaced round (rule 4)"
    static let replacementCount = "a replacement draws k = 1"

    static func sortedContains(_ sorted: [Int64], _ value: Int64) -> Bool {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low] == value
    }
}

/// The rules of docs/FAIRNESS.md §15 (claims and alternates), as every verifier words them.
enum ClaimRules {
    static let alternatesDiffer = "alternates differ (rule C1)"
    static let replacementAlternates = "alternates on a replacement or beyond the pool (rule C1)"
    static let passedNotCurrent = "passed winner not a current winner of the latest round (rule C2)"
    static let notNextAlternate = "pass is not to the next alternate (rule C3)"
    static let alternateTaken = "pass to an alternate already a winner or voided (rule C3)"
}

extension ChainState {
    /// A reverse raffle's round (docs/FAIRNESS.md §21), its winners rechecked and V1 checked before:
    /// V2, `lastIn` is there exactly when one is left, and is that one.
    mutating func checkReverse(_ r: RoundRecord, pool: EligiblePool) throws(RecordError) {
        func require(_ condition: Bool, _ reason: String) throws(RecordError) {
            if !condition { throw RecordError(reason: reason) }
        }
        guard r.reverse || r.lastIn != nil else { return }
        let n = pool.count
        var last: DrawValue? = nil
        if UInt64(r.winners.count) + 1 == n {
            let out = Set(r.winners)
            last = (0..<n).lazy.map(pool.element(at:)).first { !out.contains($0) }
        }
        try require(r.lastIn == last, ReverseRules.lastIn)
        let left = n - UInt64(r.winners.count)
        if let last {
            reverseNote = "REVERSE: round \(r.round) draws out \(r.winners.count); the last one in, \(last), wins"
        } else {
            reverseNote = "REVERSE: round \(r.round) draws out \(r.winners.count); \(left) still in"
        }
    }
}

/// The reverse raffle (docs/FAIRNESS.md §21): the reasons a verifier gives.
enum ReverseRules {
    static let shape = "reverse round draws out none or all, or has a prize, repeats, alternates, tickets or a replacement (rule V1)"
    static let lastIn = "lastIn is not the one entrant left (rule V2)"
}

/// Rehearsal rounds (docs/FAIRNESS.md §19): the reasons a verifier gives.
enum RehearsalRules {
    static let mixed = "rehearsal and real rounds in one session (rule R1)"
    static let wipeOfReal = "rehearsal wipe of a session that is not all rehearsal rounds (rule R2)"
}

/// Observers' sign-offs (issue #41, docs/FAIRNESS.md §20).
extension ChainState {
    /// A sign-off names an earlier record by index and hash; a lock's is of the next round (not
    /// drawn yet), a result's of a round of this session; an observer's signature must verify.
    mutating func checkSignoff(_ signoff: Signoff, at position: Int, notes: inout [String]) throws(RecordError) {
        guard signoff.targetIndex >= 0, signoff.targetIndex < position, hashes[signoff.targetIndex] == signoff.target else {
            throw RecordError(reason: "sign-off of a record not in the chain")
        }
        switch signoff.statement {
        case .lock:
            guard signoff.round == lastRound + 1 else { throw RecordError(reason: "sign-off of a lock that is not the next round's") }
            lockSignoffs.append((signoff.observer, signoff.round, signoff.poolHash ?? ""))
        case .result:
            guard session[signoff.round] != nil else { throw RecordError(reason: "sign-off of a result not drawn in this session") }
        }
        guard signoff.signatureVerifies else { throw RecordError(reason: "observer's signature") }
        let key = signoff.keyFingerprint.map { ", own key \($0.prefix(16))…" } ?? ", no key of their own"
        notes.append("round \(signoff.round): \(signoff.statement.rawValue) witnessed by \(signoff.observer)\(key)")
    }

    /// The first lock of a round whose lock an observer signed: a pool other than the one signed is noted.
    mutating func noteSignedLocks(_ lock: LockRecord, notes: inout [String]) {
        for signed in lockSignoffs where signed.round == lock.round && signed.poolHash != lock.poolHash {
            notes.append("NOTE: \(signed.observer) signed off pool \(signed.poolHash.prefix(8))… for round \(lock.round); it was locked on \(lock.poolHash.prefix(8))…")
        }
        lockSignoffs.removeAll { $0.round <= lock.round }
    }
}
