/// Beacon-sealed rounds (docs/FAIRNESS.md §13): Stop stores the round's lock (a `beacon` record
/// naming drand round R) instead of drawing; once R's value is fetched, `finishSealed` stores it
/// and the `round` record drawn from it. The App's loop:
///
///     store(try draw.stopSealed(chain: chain, relays: relays, at: now))   // phase stays rolling
///     // fetch round draw.sealing!.beaconRound from the relays (off the event loop), then either
///     store(try draw.finishSealed(randomness: r, signature: s, relays: agreed, at: now, nextSeed: …))
///     // (phase stopping, reveal as after `stop`), or, when no valid value came in time,
///     store(try draw.voidSealed(reason: why, at: now))                    // rolling: a new Stop is needed
extension Draw {
    struct Sealed: Sendable {
        let hash: String
        /// The `beacon` record's place in the chain: pages' witnesses keep it as a head (§14).
        let index: Int
        let prev: String
        let lock: BeaconLock
        /// The pool lock the round draws from (nil while restoring).
        var pool: Lock?
        /// A void's replacement waiting for its own drand round (the round it replaces is on the board).
        var replacement: PendingReplacement? = nil
    }

    /// What a sealed replacement draws once its drand round comes (`voidSealing`).
    struct PendingReplacement: Sendable {
        let replaces: Replacement
        let frozen: Frozen
    }

    /// The sealed round waiting for its drand value, if any.
    public var sealing: BeaconLock? { sealed?.lock }
    /// `hash` of the waiting round's `beacon` record.
    public var sealingHash: String? { sealed?.hash }
    /// Whether what waits for its drand round is a void's replacement (the board is revealed, not rolling).
    public var sealingReplacement: Bool { sealed?.replacement != nil }
    /// The waiting round's `beacon` record's `index` and `prev` (with `sealingHash`: its head).
    public var sealingPlace: (index: Int, prev: String)? { sealed.map { ($0.index, $0.prev) } }

    /// Stop of a beacon-sealed round: stores the beacon lock with drand round R = the first round of
    /// `chain` due at least `BeaconSeal.lockMarginMillis` after `at` (the round's `lock` record, §8,
    /// was stored at Start). Returns the records to store (the `beacon` record). Nothing is drawn;
    /// the phase stays rolling.
    public mutating func stopSealed(chain: BeaconChain, relays: [String], at: Int64) throws(DrawError) -> [DrawRecord] {
        guard phase == .rolling, sealed == nil, storedLock != nil, let frozen, let seed = pendingSeed,
              let commitment = pendingCommitment else {
            throw .wrongPhase
        }
        var records: [DrawRecord] = []
        let prize = frozen.prizeIndex
        var fields = derive(round: nextRound, seed: seed, key: nil, commitment: commitment, lock: lock, frozen: frozen,
                            prize: prize.map { config.prizes[$0].name }, prizeIndex: prize, replaces: nil)
        // Alternates (claims, a waiting list) are drawn with the winners from the beacon key: the
        // lock holds none (it held `[]` before issue #40, which the round then differed from).
        fields.alternates = nil
        let beacon = BeaconLock(lock: fields, count: frozen.count, chain: chain,
                                beaconRound: BeaconSeal.round(of: chain, lockedAt: at), relays: relays)
        let record = append(.beacon(beacon), at: at)
        records.append(record)
        sealed = Sealed(hash: record.hash, index: record.index, prev: record.prev, lock: beacon, pool: lock)
        return records
    }

    /// R's value came (checked by the caller: randomness = SHA-256(signature), relays agree): stores
    /// it, the `round` drawn from it and the next `commit`. Phase becomes stopping, as after `stop`.
    public mutating func finishSealed(randomness: String, signature: String, relays: [String], at: Int64,
                                      nextSeed: Seed) throws(DrawError) -> [DrawRecord] {
        if sealed?.replacement != nil { return try finishSealedReplacement(randomness: randomness, signature: signature, relays: relays,
                                                                          at: at, nextSeed: nextSeed) }
        guard phase == .rolling, let sealed, let pool = sealed.pool, let frozen, let seed = pendingSeed,
              let commitment = pendingCommitment,
              BeaconSeal.randomnessMatches(randomness: randomness, signature: signature),
              let key = BeaconSeal.key(lockHash: sealed.hash, randomness: randomness) else { throw .wrongPhase }
        let lock = sealed.lock.lock
        let value = append(.beaconValue(BeaconSealValue(round: lock.round, beaconRound: sealed.lock.beaconRound, randomness: randomness,
                                                        signature: signature, lock: sealed.hash, relays: relays)), at: at)
        let round = derive(round: lock.round, seed: seed, key: key, commitment: commitment, lock: pool, frozen: frozen,
                           prize: lock.prize, prizeIndex: lock.prizeIndex, replaces: nil)
        self.sealed = nil
        return finishStop([value], round: round, at: at, nextSeed: nextSeed)
    }

    /// A sealed replacement's value came: stores it, the replacement `round` drawn from it (one
    /// winner, `replaces` the voided one) and the next `commit`. The phase stays as it was.
    private mutating func finishSealedReplacement(randomness: String, signature: String, relays: [String], at: Int64,
                                                  nextSeed: Seed) throws(DrawError) -> [DrawRecord] {
        guard let sealed, let pending = sealed.replacement, let pool = sealed.pool, let seed = pendingSeed,
              let commitment = pendingCommitment, BeaconSeal.randomnessMatches(randomness: randomness, signature: signature),
              let key = BeaconSeal.key(lockHash: sealed.hash, randomness: randomness),
              let b = board.firstIndex(where: { $0.round == pending.replaces.round }) else { throw .wrongPhase }
        let lock = sealed.lock.lock
        let value = append(.beaconValue(BeaconSealValue(round: lock.round, beaconRound: sealed.lock.beaconRound, randomness: randomness,
                                                        signature: signature, lock: sealed.hash, relays: relays)), at: at)
        let replacement = derive(round: lock.round, seed: seed, key: key, commitment: commitment, lock: pool, frozen: pending.frozen,
                                 prize: lock.prize, prizeIndex: lock.prizeIndex, replaces: pending.replaces)
        self.sealed = nil
        storedLock = nil
        let record = append(.round(replacement), at: at)
        lastResult = record
        board[b].winners += replacement.winners
        winnersThisSession.formUnion(replacement.winners)
        keptWinners.add(replacement.winners)
        relock()
        return [value, record, commitNext(nextSeed, at: at)]
    }

    /// Stores a sealed replacement's `beacon` lock (R the first round due after `at` plus the
    /// margin) and waits for R (`voidSealing`, and again after the host gave an R up).
    mutating func appendReplacementSeal(_ fields: RoundRecord, chain: BeaconChain, relays: [String], pool: Lock,
                                        pending: PendingReplacement, at: Int64) -> DrawRecord {
        let beacon = BeaconLock(lock: fields, count: 1, chain: chain, beaconRound: BeaconSeal.round(of: chain, lockedAt: at), relays: relays)
        let record = append(.beacon(beacon), at: at)
        sealed = Sealed(hash: record.hash, index: record.index, prev: record.prev, lock: beacon, pool: pool, replacement: pending)
        return record
    }

    /// The host gave up a sealed replacement's R (`beaconVoid`): a replacement has no Stop to seal
    /// the next one, so it is sealed at once by a later R under the same lock (both stored).
    public mutating func abandonReplacementSeal(reason: String, chain: BeaconChain, relays: [String], at: Int64) throws(DrawError) -> [DrawRecord] {
        guard let waiting = sealed, let pending = waiting.replacement, let pool = waiting.pool else { throw .wrongPhase }
        let void = try voidSealed(reason: reason, at: at)
        return [void, appendReplacementSeal(waiting.lock.lock, chain: chain, relays: relays, pool: pool, pending: pending, at: at)]
    }

    /// No valid value of R came in time: stores the void with its reason. The round keeps rolling
    /// with its frozen entropy; the host presses Stop again, which seals a new drand round.
    public mutating func voidSealed(reason: String, at: Int64) throws(DrawError) -> DrawRecord {
        guard let sealed, phase == .rolling || sealed.replacement != nil else { throw .wrongPhase }
        let text = String(reason.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.prefix(DrawLimits.maxReasonLength))
        let record = append(.beaconVoid(round: sealed.lock.lock.round, beaconRound: sealed.lock.beaconRound,
                                        reason: text.isEmpty ? "no value" : text), at: at)
        self.sealed = nil
        return record
    }

    /// After a restore whose records end with a `beacon` record: back to rolling on that round,
    /// waiting for the same drand round, with the lock's seed, entropy and pool (nothing stored).
    mutating func resumeSealed() {
        guard let waiting = sealed else { return }
        let lock = waiting.lock.lock
        sealed = nil
        if let replaces = lock.replaces { return resumeSealedReplacement(waiting, replaces: replaces) }
        guard let seed = Hex.decode(lock.seed).flatMap(Seed.init(bytes:)), seed.commitment == lock.commitment,
              let entropy = Hex.decode(lock.entropy), lock.round == nextRound,
              let pool = EligiblePool(spec: lock.pool, entrants: validated.entrants), lock.pool.poolHash == lock.poolHash else { return }
        let contributions = lock.contributions.compactMap(Contribution.init(hex:))
        frozen = Frozen(contributions: contributions, audience: lock.audience, entropy: entropy, count: waiting.lock.count,
                        prizeIndex: lock.prizeIndex)
        pendingSeed = seed
        pendingCommitment = lock.commitment
        nextCommitReason = .next
        armedPlan = RoundPlan(round: lock.round, prize: lock.prize, prizeIndex: lock.prizeIndex, count: waiting.lock.count,
                              perStop: config.perStop, cut: nil, prizeLeft: nil)
        sealed = Sealed(hash: waiting.hash, index: waiting.index, prev: waiting.prev, lock: waiting.lock, pool: Lock(spec: lock.pool, hash: lock.poolHash, pool: pool))
        phase = .rolling
    }

    /// The same for a void's replacement: the board stays revealed, waiting for the same drand round
    /// with the lock's seed, entropy and pool (the void itself was folded into the board).
    private mutating func resumeSealedReplacement(_ waiting: Sealed, replaces: Replacement) {
        let lock = waiting.lock.lock
        guard let seed = Hex.decode(lock.seed).flatMap(Seed.init(bytes:)), seed.commitment == lock.commitment,
              let entropy = Hex.decode(lock.entropy), board.contains(where: { $0.round == replaces.round }),
              let pool = EligiblePool(spec: lock.pool, entrants: validated.entrants), lock.pool.poolHash == lock.poolHash else { return }
        let frozen = Frozen(contributions: lock.contributions.compactMap(Contribution.init(hex:)), audience: lock.audience,
                            entropy: entropy, count: 1, prizeIndex: lock.prizeIndex)
        pendingSeed = seed
        pendingCommitment = lock.commitment
        nextCommitReason = .next
        sealed = Sealed(hash: waiting.hash, index: waiting.index, prev: waiting.prev, lock: waiting.lock,
                        pool: Lock(spec: lock.pool, hash: lock.poolHash, pool: pool),
                        replacement: PendingReplacement(replaces: replaces, frozen: frozen))
    }
}
