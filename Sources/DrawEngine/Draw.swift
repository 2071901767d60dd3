public enum DrawPhase: String, Sendable, Codable {
    case idle, rolling, stopping, revealed
}

public struct VoidedWinner: Sendable, Equatable {
    public let winner: DrawValue
    public let reason: String
}

/// A round as the board shows it: current winners (replacements included) and voided ones.
public struct BoardRound: Sendable, Equatable {
    public let round: Int
    public let prize: String?
    public let prizeIndex: Int?
    public internal(set) var winners: [DrawValue]
    public internal(set) var voided: [VoidedWinner]
    /// A round whose winners must claim: its alternates in order, and how many passes used them.
    public internal(set) var alternates: [DrawValue] = []
    public internal(set) var passes = 0
}

/// What the `commit` message publishes before a round can start: the commitment and pool lock,
/// and what follows from them for the pages (what is left, what the armed round will draw).
public struct PendingCommit: Sendable, Equatable {
    public let round: Int
    public let commitment: String
    public let poolHash: String
    public let remaining: UInt64
    public let currentPrize: Int?
    public let prizesDone: Bool
    /// What the committed round will draw, as pages announce it before and during Start.
    public let plan: RoundPlan
}

/// What one round draws, known as soon as the round is armed (committed): its number, prize
/// tier, how many winners, and why that is fewer than the host asked for per stop.
public struct RoundPlan: Sendable, Equatable {
    /// Why a round draws fewer winners than `perStop` asks for.
    public enum Cut: String, Sendable {
        /// Only `prizeLeft` winners are left in the prize tier.
        case prize
        /// Only `remaining` entrants are left in the pool.
        case pool
    }

    public let round: Int
    public let prize: String?
    public let prizeIndex: Int?
    /// Winners the round draws; 0 when the pool or every prize tier is used up (Start is refused).
    public let count: Int
    public let perStop: PerStop
    public let cut: Cut?
    /// Winners still to draw in the prize tier (nil without prizes).
    public let prizeLeft: Int?
}

/// One draw: settings, phase, the current session's board and the pending commitment.
///
/// Calls that return records change the draw only in memory; the caller must store the
/// records (in order, durably) before it announces anything derived from them. Every
/// throwing call leaves the draw unchanged. The App's loop, per docs/FAIRNESS.md:
///
///     var draw = try Draw(config: stored, restoring: storedRecords)   // or Draw(config:)
///     store(try draw.prepareCommitment(seed: .random(using: &csprng), at: now))
///     broadcast(draw.commit!.message)
///     try draw.start(contributions: viewersHelloEntropy, audience: typed, at: now)
///     // ticks: draw.rollingValue(using: &anyGenerator)
///     let records = try draw.stop(at: now, nextSeed: .random(using: &csprng))
///     store(records)                  // synced, before anyone sees a winner
///     // slow-down ending on the first winner, then:
///     try draw.reveal(); broadcast(draw.lastResult!.resultMessage()!, draw.commit!.message)
public struct Draw: Sendable {
    struct Lock: Sendable {
        let spec: PoolSpec
        let hash: String
        let pool: EligiblePool
    }

    struct Frozen: Sendable {
        let contributions: [Contribution]
        let audience: String?
        let entropy: [UInt8]
        let count: Int
        let prizeIndex: Int?
    }

    public internal(set) var phase: DrawPhase = .idle
    public internal(set) var board: [BoardRound] = []
    /// Whether the session's rounds are rehearsal rounds; nil while it has none (issue 45).
    public internal(set) var sessionRehearsal: Bool? = nil
    /// The highest round number drawn so far (rounds continue across Clear).
    public private(set) var lastRound = 0
    public private(set) var recordCount = 0
    public private(set) var lastHash = DrawRecord.genesisPrev
    /// The latest `round` record of this session (for `state.result`); nil after Clear.
    public internal(set) var lastResult: DrawRecord?
    /// Observers' sign-offs of this session, in order (issue #41); emptied by Clear.
    public internal(set) var signoffs: [Signoff] = []
    /// The index of the chain's latest `commit` or `entrants` record: a lock's sign-off must come after it.
    var lockBoundary = 0

    var validated: ValidatedConfig
    var lock: Lock
    var pendingSeed: Seed?
    var pendingCommitment: String?
    var frozen: Frozen?
    var winnersThisSession = Set<DrawValue>()
    var voidedThisSession = Set<DrawValue>()
    var recordedLists = Set<String>()
    var nextCommitReason = CommitReason.open
    /// The plan frozen at Start, kept until the reveal (the board moves on at Stop).
    var armedPlan: RoundPlan?
    /// The other draws' winners as the latest Start resolved them (`excludeWinnersOf`).
    private var pastWinners: [PastWinners] = []
    /// Every winner in the chain not voided since (all sessions), counted per win (a person
    /// who won twice, one win voided, still holds the other): what other draws exclude.
    var keptWinners = WinCount()
    /// After a restore: the last stored commitment no round has used yet (`resumeCommitment`).
    private var unusedCommitment: String?
    /// The entry tree's root of the latest list a lock named (`EntryTree`).
    private var entryRoot: (hash: String, root: String)?
    /// A beacon-sealed round stored at Stop and waiting for its drand value (docs/FAIRNESS.md §13).
    var sealed: Sealed?
    /// The program that writes this draw's records now, named by each `commit` record it writes
    /// (issue #47); set by the server (nil: records name none, as before).
    public var software: SoftwareIdentity?
    /// The program the chain's latest `commit` record names (nil: none named).
    var lastCommitSoftware: SoftwareIdentity?
    /// The `lock` record the latest Start stored (its round not drawn yet), or after a restore the
    /// chain's last lock no round followed: what `resumeRolling` carries on.
    var storedLock: LockRecord?

    /// A new draw (no records yet). Call `prepareCommitment` before the first Start.
    public init(config: DrawConfig = .standard) throws(DrawError) {
        try self.init(config: config, restoring: [])
    }

    /// Rebuilds a draw from its stored records (after a restart). It comes back idle without a
    /// pending commitment: call `prepareCommitment` (a `restart` commit). Announced rounds stay.
    public init(config: DrawConfig, restoring records: [DrawRecord]) throws(DrawError) {
        var restorer = try DrawRestorer(config: config)
        for record in records { try restorer.add(record) }
        self = restorer.finish()
    }

    /// An empty draw to restore records into (`DrawRestorer`).
    init(restoringInto config: DrawConfig) throws(DrawError) {
        validated = try ValidatedConfig(config)
        lock = Self.makeLock(validated, winners: [], voided: [], extra: [], prize: nil)
    }

    /// Folds the next stored record into the draw; it must extend the chain (index, prev, hash).
    mutating func restoreNext(_ record: DrawRecord) throws(DrawError) {
        guard record.index == recordCount, record.prev == lastHash, record.computedHash == record.hash else { throw .corruptHistory }
        if case .round(let round) = record.body, round.commitment == unusedCommitment { unusedCommitment = nil }
        switch record.body {
        case .commit(let commitment, _):
            unusedCommitment = commitment
            lastCommitSoftware = record.software ?? lastCommitSoftware
        case .entrants(let hash, _, _, _, _): recordedLists.insert(hash)
        case .lock(let lock): storedLock = lock
        case .round(let round):
            if let replaced = round.replaces {
                guard let b = board.firstIndex(where: { $0.round == replaced.round }) else { throw .corruptHistory }
                board[b].winners += round.winners
            } else {
                sessionRehearsal = round.rehearsal
                board.append(BoardRound(round: round.round, prize: round.prize, prizeIndex: round.prizeIndex,
                                        winners: round.winners, voided: [], alternates: round.alternates ?? []))
                lastRound = max(lastRound, round.round)
            }
            winnersThisSession.formUnion(round.winners)
            keptWinners.add(round.won)
            lastResult = record
        case .void(let round, let winner, let reason):
            guard let b = board.firstIndex(where: { $0.round == round }),
                  let w = board[b].winners.firstIndex(of: winner) else { throw .corruptHistory }
            board[b].winners.remove(at: w)
            board[b].voided.append(VoidedWinner(winner: winner, reason: reason))
            voidedThisSession.insert(winner)
            keptWinners.void(winner)
        case .pass(let round, let winner, let alternate, let reason):
            guard board.contains(where: { $0.round == round && $0.winners.contains(winner) }),
                  nextAlternate(round: round) == alternate else { throw .corruptHistory }
            _ = applyPass(round: round, winner: winner, reason: reason)
        case .clear:
            sessionRehearsal = nil
            board = []
            winnersThisSession = []
            voidedThisSession = []
            lastResult = nil
        case .beacon(let lock): sealed = Sealed(hash: record.hash, index: record.index, prev: record.prev, lock: lock, pool: nil)
        case .beaconValue, .beaconVoid: break
        case .signoff(let signoff): signoffs.append(signoff)
        }
        if case .clear = record.body { signoffs = [] }
        if record.kind == "commit" || record.kind == "entrants" { lockBoundary = record.index }
        if case .round = record.body { sealed = nil; storedLock = nil }
        if case .commit = record.body { storedLock = nil }
        if case .beaconVoid = record.body { sealed = nil }
        recordCount += 1
        lastHash = record.hash
    }

    /// After the last stored record: idle, or revealed on the session's latest round.
    mutating func finishRestore() {
        nextCommitReason = recordCount == 0 ? .open : .restart
        // Every stored round is announced (storage comes first), so a restart shows the session's
        // latest round revealed, as the pages showed it before; a round that was only rolling is gone.
        phase = lastResult == nil ? .idle : .revealed
        relock()
        resumeSealed()
    }

    // MARK: State for pages

    public var config: DrawConfig { validated.config }
    /// A private list's entrant behind public id `id` (docs/FAIRNESS.md §22): the host's to see, and
    /// masked (`NameMasking`) for everyone else. nil: not a private list's id.
    public func privateName(of id: String) -> String? { validated.privateNames[id] }
    /// Names the last accepted list had more than once (each kept once).
    public var duplicates: [String] { validated.duplicates }
    /// SHA-256 hex of the canonical entrant list (docs/FAIRNESS.md §3, the pool's `entrants`); nil for a range.
    public var entrantsHash: String? { validated.entrantsHash }
    /// How many distinct entrants the list pool holds; nil for a range.
    public var entrantCount: Int? { validated.entrants?.count }
    public var nextRound: Int { lastRound + 1 }
    /// The published commitment and pool lock for the next draw, if a seed is committed.
    public var commit: PendingCommit? {
        pendingCommitment.map {
            PendingCommit(round: nextRound, commitment: $0, poolHash: lock.hash, remaining: remaining,
                          currentPrize: currentPrize, prizesDone: prizesDone, plan: nextPlan)
        }
    }
    /// How many entrants the next round can draw from.
    public var remaining: UInt64 { lock.pool.count }
    public var isExhausted: Bool { remaining == 0 }
    /// The contributions frozen at Start, while rolling (to tell a viewer it took part).
    public var frozenContributions: [Contribution] { frozen?.contributions ?? [] }
    /// The audience number frozen at Start, while rolling (a cluster keeps it with the contributions).
    public var frozenAudience: String? { frozen?.audience }
    /// The prize tier the next round draws: the first from `config.prize` on with winners left.
    public var currentPrize: Int? {
        let prizes = config.prizes
        guard !prizes.isEmpty, config.prize < prizes.count else { return nil }
        return (config.prize..<prizes.count).first { awarded($0) < prizes[$0].count }
    }
    public var prizesDone: Bool { !config.prizes.isEmpty && currentPrize == nil }

    /// Winners (voided ones excluded) of prize tier `index` in this session: rounds drawn for a
    /// tier of the same name at the same position. A renamed or moved tier starts from zero, so a
    /// new list of tiers never inherits an old one's winners by position.
    public func awarded(_ index: Int) -> Int {
        let prizes = config.prizes
        guard prizes.indices.contains(index) else { return 0 }
        let name = prizes[index].name
        return board.filter { $0.prizeIndex == index && $0.prize == name }.reduce(0) { $0 + $1.winners.count }
    }

    /// What the next round (`nextRound`) will draw with the settings and board as they are now.
    public var nextPlan: RoundPlan {
        let prizes = config.prizes
        var prizeIndex: Int? = nil
        var prizeLeft: Int? = nil
        var available = remaining
        // A reverse raffle draws out at most all but one: the last one in wins (docs/FAIRNESS.md §21).
        if config.reverse { available = remaining > 0 ? remaining - 1 : 0 }
        if !prizes.isEmpty {
            if let prize = currentPrize {
                prizeIndex = prize
                prizeLeft = prizes[prize].count - awarded(prize)
            } else {
                available = 0
            }
        }
        let asked: UInt64? = if case .count(let n) = config.perStop { UInt64(n) } else { nil }
        var count = asked ?? .max
        var cut: RoundPlan.Cut? = nil
        if let prizeLeft, UInt64(prizeLeft) < count { count = UInt64(prizeLeft); cut = .prize }
        if available < count { count = available; cut = .pool }
        if asked == nil || available == 0 { cut = nil }
        return RoundPlan(round: nextRound, prize: prizeIndex.map { prizes[$0].name }, prizeIndex: prizeIndex,
                         count: Int(clamping: count), perStop: config.perStop, cut: cut, prizeLeft: prizeLeft)
    }

    /// The round pages announce: while rolling and stopping the one drawn now, else the next.
    public var armed: RoundPlan {
        (phase == .rolling || phase == .stopping ? armedPlan : nil) ?? nextPlan
    }

    // MARK: Commands

    /// New settings, only while idle or revealed. Returns the duplicate names of a list (kept once).
    /// `pastWinners`: the winners of the draws `excludeWinnersOf` names, as they stand now, so the
    /// published lock already leaves them out (Start resolves them again).
    @discardableResult
    public mutating func configure(_ newConfig: DrawConfig, pastWinners: [PastWinners] = []) throws(DrawError) -> [String] {
        guard (phase == .idle || phase == .revealed) && sealed == nil else { throw .wrongPhase }
        // A session holds rehearsal rounds or real ones, never both (docs/FAIRNESS.md §19).
        if let kind = sessionRehearsal, kind != newConfig.rehearsal { throw .rehearsalMixed }
        var newConfig = newConfig
        // Settings that do not say `private` keep the draw's (a private draw never turns public by omission).
        if !newConfig.privateGiven { newConfig.isPrivate = config.isPrivate }
        // A private draw keeps its secret, so every entry keeps its public id (docs/FAIRNESS.md §22).
        if newConfig.isPrivate, newConfig.privateSecret == nil { newConfig.privateSecret = config.privateSecret }
        validated = try ValidatedConfig(newConfig)
        self.pastWinners = validated.config.excludeWinnersOf.compactMap { link in pastWinners.first { $0.code == link.code } }
        relock()
        return validated.duplicates
    }

    /// Commits `seed` (fresh from the OS CSPRNG) for the next draw and locks the pool. Replaces
    /// (abandons) an unused commitment. Store the returned `commit` record, then publish `commit`.
    public mutating func prepareCommitment(seed: Seed, at: Int64) throws(DrawError) -> DrawRecord {
        guard phase == .idle || phase == .revealed else { throw .wrongPhase }
        return commitNext(seed, at: at)
    }

    /// The seed behind the pending commitment, for a cluster to keep it sealed beside the
    /// `commit` record (so another instance can finish the round); nil when none is pending.
    /// Never publish it before its round is drawn.
    public var committedSeed: Seed? { pendingSeed }

    /// After a restore (a cluster's new owner): takes up the stored commitment no round has
    /// used yet with its `seed`, instead of committing a new one, so the round the pages saw
    /// committed is the one drawn. Refused (`notCommitted`) unless `seed` is that commitment's.
    public mutating func resumeCommitment(_ seed: Seed) throws(DrawError) {
        guard phase == .idle || phase == .revealed, pendingSeed == nil, let unused = unusedCommitment,
              seed.commitment == unused else { throw .notCommitted }
        pendingSeed = seed
        pendingCommitment = unused
        nextCommitReason = .next
    }

    /// Start rolling: freezes the contributions and the audience number (1–32 digits; blank means none)
    /// and locks the round: returns the records to store before anything is announced (an
    /// `entrants` record when the list is new to the chain, then the round's `lock`, docs/FAIRNESS.md
    /// §8), so the chain holds the pool, the exclusions and the plan from the moment the entropy
    /// is frozen. With `excludeWinnersOf`, `pastWinners` are the linked draws' winners as they stand
    /// now: they are locked into the pool here (the lock, and so `commit?.poolHash`, may change; publish it).
    @discardableResult
    public mutating func start(contributions: [Contribution], audience: String? = nil, at: Int64,
                               pastWinners: [PastWinners] = []) throws(DrawError) -> [DrawRecord] {
        guard (phase == .idle || phase == .revealed) && sealed == nil else { throw .wrongPhase }
        guard pendingSeed != nil else { throw .notCommitted }
        // Four eyes (issue #41): an observer has signed this round's lock as it stands.
        if config.foureyes, !lockSignedOff { throw .signoffRequired }
        let audience = try Self.audienceNumber(audience)
        var next = self
        if !config.excludeWinnersOf.isEmpty {
            next.pastWinners = config.excludeWinnersOf.compactMap { link in pastWinners.first { $0.code == link.code } }
            next.relock()
        }
        try next.startLocked(contributions: contributions, audience: audience)
        var records = next.recordListIfNew(at: at)
        let lock = next.lockRecord(round: next.nextRound, commitment: next.pendingCommitment!, lock: next.lock,
                                   plan: next.stopPlan(next.frozen!))
        records.append(next.append(.lock(lock), at: at))
        next.storedLock = lock
        self = next
        return records
    }

    /// After a restore (a cluster's new owner) whose chain ends with the `lock` a Start stored for
    /// the pending commitment, with the inputs that Start froze (kept beside the log): rolling on
    /// the same round again, nothing stored. `wrongPhase` unless that lock is the last one and
    /// still matches the pool and the plan.
    public mutating func resumeRolling(contributions: [Contribution], audience: String?) throws(DrawError) {
        guard phase == .idle || phase == .revealed, let stored = storedLock, let commitment = pendingCommitment,
              stored.commitment == commitment, stored.round == nextRound, stored.poolHash == lock.hash else { throw .wrongPhase }
        var next = self
        try next.startLocked(contributions: contributions, audience: try Self.audienceNumber(audience))
        guard next.stopPlan(next.frozen!) == stored.plan else { throw .wrongPhase }
        self = next
    }

    private mutating func startLocked(contributions: [Contribution], audience: String?) throws(DrawError) {
        if lock.pool.count == 0, case .list(_, _, _, .some, _) = lock.spec { throw .noneEligible }
        guard lock.pool.count > 0 else { throw .poolExhausted }
        if config.reverse, lock.pool.count == 1 { throw .reverseDone }
        guard !prizesDone else { throw .prizesDone }
        let plan = nextPlan
        guard plan.count <= DrawLimits.maxPerRound else { throw .badPerStop }
        frozen = Self.freeze(contributions, audience: audience, count: plan.count, prizeIndex: plan.prizeIndex)
        armedPlan = plan
        phase = .rolling
    }

    /// Stop: derives the winners now (from the lock Start stored) and commits `nextSeed` for the
    /// next draw. Returns the records to store (the `round`, the next `commit`), in order, before
    /// anything is announced. Phase becomes stopping.
    public mutating func stop(at: Int64, nextSeed: Seed) throws(DrawError) -> [DrawRecord] {
        guard phase == .rolling, let frozen, let seed = pendingSeed, let commitment = pendingCommitment else { throw .wrongPhase }
        guard sealed == nil, storedLock != nil else { throw .wrongPhase }
        let prize = frozen.prizeIndex
        let round = derive(round: nextRound, seed: seed, key: seed, commitment: commitment, lock: lock, frozen: frozen,
                           prize: prize.map { config.prizes[$0].name }, prizeIndex: prize, replaces: nil)
        return finishStop([], round: round, at: at, nextSeed: nextSeed)
    }

    /// The `lock` record's plan of the round Stop draws now (§8).
    func stopPlan(_ frozen: Frozen) -> LockPlan {
        let asked: Int? = if case .count(let n) = config.perStop { n } else { nil }
        return LockPlan(count: frozen.count, perStop: asked, prizeCount: frozen.prizeIndex.map { config.prizes[$0].count },
                        prizeLeft: armedPlan?.prizeLeft)
    }

    /// Appends the drawn `round` and the next `commit` to `records`; phase becomes stopping.
    mutating func finishStop(_ earlier: [DrawRecord], round: RoundRecord, at: Int64, nextSeed: Seed) -> [DrawRecord] {
        var records = earlier
        let roundRecord = append(.round(round), at: at)
        records.append(roundRecord)
        lastResult = roundRecord
        sessionRehearsal = round.rehearsal
        board.append(BoardRound(round: round.round, prize: round.prize, prizeIndex: round.prizeIndex, winners: round.winners, voided: [],
                                alternates: round.alternates ?? []))
        winnersThisSession.formUnion(round.winners)
        keptWinners.add(round.won)
        lastRound = round.round
        self.frozen = nil
        storedLock = nil
        relock()
        records.append(commitNext(nextSeed, at: at))
        phase = .stopping
        return records
    }

    /// The slow-down has landed: winners are on every screen.
    public mutating func reveal() throws(DrawError) {
        guard phase == .stopping else { throw .wrongPhase }
        phase = .revealed
        armedPlan = nil
    }

    /// After a restore (a cluster's new owner) whose records end with a Stop (a round, not a
    /// void's replacement, then the next `commit`) that its owner never revealed: back to
    /// stopping on that round, so the slow-down lands on it and `reveal` follows, as the old
    /// owner would have done. Nothing is drawn or stored. `wrongPhase` unless the records end so.
    public mutating func resumeStopping() throws(DrawError) {
        guard phase == .revealed, let last = lastResult, last.index == recordCount - 2,
              case .round(let round) = last.body, round.replaces == nil else { throw .wrongPhase }
        let prizes = config.prizes
        var prizeLeft: Int?
        if let index = round.prizeIndex, prizes.indices.contains(index) {
            prizeLeft = prizes[index].count - awarded(index) + round.winners.count
        }
        var cut: RoundPlan.Cut?
        if case .count(let asked) = config.perStop, round.winners.count < asked {
            cut = prizeLeft == round.winners.count ? .prize : .pool
        }
        armedPlan = RoundPlan(round: round.round, prize: round.prize, prizeIndex: round.prizeIndex, count: round.winners.count,
                              perStop: config.perStop, cut: cut, prizeLeft: prizeLeft)
        phase = .stopping
    }

    /// Voids `winner` of `round` (a no-show) and draws one replacement with the pending
    /// commitment, the given contributions and a re-locked pool; commits `nextSeed`. Returns the
    /// records to store: `void`, maybe `entrants`, the replacement `round`, the next `commit`.
    public mutating func void(round: Int, winner: DrawValue, reason: String, contributions: [Contribution] = [],
                              audience: String? = nil, nextSeed: Seed, at: Int64) throws(DrawError) -> [DrawRecord] {
        let plan = try voidPlan(round: round, winner: winner, reason: reason, contributions: contributions, audience: audience)
        guard let seed = pendingSeed else { throw .notCommitted }
        let (b, w) = (plan.board, plan.winner)
        var (voidRecord, records) = appendVoid(plan, round: round, at: at)
        let replacement = derive(round: round, seed: seed, key: seed, commitment: plan.commitment, lock: plan.lock, frozen: plan.frozen,
                                 prize: board[b].prize, prizeIndex: board[b].prizeIndex,
                                 replaces: Replacement(round: round, winner: w, void: voidRecord.hash))
        let replacementRecord = append(.round(replacement), at: at)
        records.append(replacementRecord)
        lastResult = replacementRecord
        board[b].winners.removeAll { $0 == w }
        board[b].voided.append(VoidedWinner(winner: w, reason: plan.reason))
        board[b].winners += replacement.winners
        voidedThisSession = plan.voided
        winnersThisSession.formUnion(replacement.winners)
        keptWinners.void(w)
        keptWinners.add(replacement.winners)
        relock()
        records.append(commitNext(nextSeed, at: at))
        return records
    }

    /// What a void checks and re-locks before its replacement is drawn (`void`, `voidSealing`).
    struct VoidPlan {
        let board: Int
        let winner: DrawValue
        let reason: String
        let voided: Set<DrawValue>
        let lock: Lock
        let frozen: Frozen
        let commitment: String
    }

    func voidPlan(round: Int, winner: DrawValue, reason: String, contributions: [Contribution],
                  audience: String?) throws(DrawError) -> VoidPlan {
        guard (phase == .idle || phase == .revealed) && sealed == nil else { throw .wrongPhase }
        guard pendingSeed != nil, let commitment = pendingCommitment else { throw .notCommitted }
        // Who is drawn out of a reverse raffle is not a prize to re-draw (docs/FAIRNESS.md §21).
        guard !config.reverse else { throw .badReverse }
        let reason = EntrantList.trim(reason)
        guard (1...DrawLimits.maxReasonLength).contains(reason.count), !EntrantList.hasControlCharacter(reason) else { throw .badReason }
        let audience = try Self.audienceNumber(audience)
        guard let b = board.firstIndex(where: { $0.round == round }) else { throw .unknownRound }
        let candidates = [winner] + Self.alternateForms(of: winner)
        if candidates.contains(where: { voidedThisSession.contains($0) }) { throw .alreadyVoided }
        guard let w = candidates.first(where: { board[b].winners.contains($0) }) else { throw .unknownWinner }
        let voided = voidedThisSession.union([w])
        let replacementLock = Self.makeLock(validated, winners: winnersThisSession, voided: voided, extra: board[b].winners,
                                            prize: board[b].prizeIndex, past: pastWinners)
        if replacementLock.pool.count == 0, case .list(_, _, _, .some, _) = replacementLock.spec { throw .noneEligible }
        guard replacementLock.pool.count > 0 else { throw .poolExhausted }
        let frozen = Self.freeze(contributions, audience: audience, count: 1, prizeIndex: board[b].prizeIndex)
        return VoidPlan(board: b, winner: w, reason: reason, voided: voided, lock: replacementLock, frozen: frozen, commitment: commitment)
    }

    /// The void's records up to its replacement's lock: `void`, maybe `entrants`, the `lock`.
    mutating func appendVoid(_ plan: VoidPlan, round: Int, at: Int64) -> (void: DrawRecord, records: [DrawRecord]) {
        let voidRecord = append(.void(round: round, winner: plan.winner, reason: plan.reason), at: at)
        var records = [voidRecord] + recordListIfNew(at: at)
        records.append(append(.lock(lockRecord(round: round, commitment: plan.commitment, lock: plan.lock, plan: .replacement)), at: at))
        return (voidRecord, records)
    }

    /// A void in a beacon-sealed draw (docs/FAIRNESS.md §13, "Voids"; issue #40): the replacement is
    /// sealed by a drand round of its own, due after the void, as a Stop seals a round. Stores the
    /// `void`, maybe `entrants`, the replacement's `lock` and its `beacon` lock (with `replaces`,
    /// count 1); the voided winner leaves the board now, the replacement comes with R's value
    /// (`finishSealed`). Nothing else may happen meanwhile (`sealed` holds the waiting replacement).
    public mutating func voidSealing(round: Int, winner: DrawValue, reason: String, contributions: [Contribution] = [],
                                     audience: String? = nil, chain: BeaconChain, relays: [String], at: Int64) throws(DrawError) -> [DrawRecord] {
        let plan = try voidPlan(round: round, winner: winner, reason: reason, contributions: contributions, audience: audience)
        guard let seed = pendingSeed else { throw .notCommitted }
        let b = plan.board
        let (voidRecord, earlier) = appendVoid(plan, round: round, at: at)
        let replaces = Replacement(round: round, winner: plan.winner, void: voidRecord.hash)
        var fields = derive(round: round, seed: seed, key: nil, commitment: plan.commitment, lock: plan.lock, frozen: plan.frozen,
                            prize: board[b].prize, prizeIndex: board[b].prizeIndex, replaces: replaces)
        fields.alternates = nil
        board[b].winners.removeAll { $0 == plan.winner }
        board[b].voided.append(VoidedWinner(winner: plan.winner, reason: plan.reason))
        voidedThisSession = plan.voided
        keptWinners.void(plan.winner)
        let beacon = appendReplacementSeal(fields, chain: chain, relays: relays, pool: plan.lock,
                                           pending: PendingReplacement(replaces: replaces, frozen: plan.frozen), at: at)
        return earlier + [beacon]
    }

    /// Clear: hides the board and starts a new session (earlier winners may win again; the
    /// archive keeps everything). Store the returned `clear` record.
    /// `rehearsal`: the wipe of a session of rehearsal rounds before the real event (refused,
    /// `not_rehearsal`, unless the session holds rehearsal rounds only); docs/FAIRNESS.md §19.
    public mutating func clear(at: Int64, rehearsal: Bool = false) throws(DrawError) -> DrawRecord {
        guard (phase == .idle || phase == .revealed) && sealed == nil else { throw .wrongPhase }
        if rehearsal, sessionRehearsal != true { throw .notRehearsal }
        let record = append(.clear(rehearsal: rehearsal), at: at)
        signoffs = []
        sessionRehearsal = nil
        board = []
        winnersThisSession = []
        voidedThisSession = []
        lastResult = nil
        phase = .idle
        relock()
        return record
    }

    /// A value to show while rolling. Display only: it never influences the winners.
    public func rollingValue(using generator: inout some RandomNumberGenerator) -> DrawValue {
        switch config.pool {
        case .range(let from, let to): .number(Int64.random(in: from...to, using: &generator))
        // A private draw rolls its public ids (`validated.entrants`), never a name.
        case .list where config.isPrivate: .name(validated.entrants?.randomElement(using: &generator) ?? "")
        case .entries where config.isPrivate: .name(validated.entrants?.randomElement(using: &generator) ?? "")
        case .list(let names): .name(names.randomElement(using: &generator) ?? "")
        case .entries(let entrants): .name(entrants.randomElement(using: &generator)?.name ?? "")
        case .checkin(let ids): .name(ids.randomElement(using: &generator) ?? "")
        case .books: .name(validated.entrants?.randomElement(using: &generator) ?? "")
        }
    }

    // MARK: Internals

    mutating func append(_ body: RecordBody, at: Int64) -> DrawRecord {
        let record = DrawRecord(index: recordCount, at: at, prev: lastHash, body: body, software: software)
        if record.kind == "commit" || record.kind == "entrants" { lockBoundary = record.index }
        recordCount += 1
        lastHash = record.hash
        return record
    }

    mutating func commitNext(_ seed: Seed, at: Int64) -> DrawRecord {
        // A lock no round used is abandoned with its commitment (a restart cut its roll short).
        storedLock = nil
        pendingSeed = seed
        pendingCommitment = seed.commitment
        // The first commitment a restarted process writes says so, also after it resumed a round
        // the previous process started (§16: the program changes only at a restart's commit).
        let restarted = nextCommitReason == .next && software != nil && lastCommitSoftware != nil && software != lastCommitSoftware
        let record = append(.commit(commitment: seed.commitment, reason: restarted ? .restart : nextCommitReason), at: at)
        nextCommitReason = .next
        lastCommitSoftware = software
        return record
    }

    mutating func recordListIfNew(at: Int64) -> [DrawRecord] {
        guard let names = validated.entrants, let hash = validated.entrantsHash, !recordedLists.contains(hash) else { return [] }
        recordedLists.insert(hash)
        return [append(.entrants(hash: hash, names: names, tickets: validated.tickets, groups: validated.groups, books: validated.books), at: at)]
    }

    /// The `lock` record of a round drawn from `lock` (docs/FAIRNESS.md §8); the entry tree's root
    /// is computed once per list.
    mutating func lockRecord(round: Int, commitment: String, lock: Lock, plan: LockPlan) -> LockRecord {
        var root: String? = nil
        var host = [Int64]()
        switch lock.spec {
        case .range(let from, let to, _):
            host = validated.excluded.compactMap { value -> Int64? in
                if case .number(let n) = value, n >= from, n <= to { return n }
                return nil
            }.sorted()
        case .list(_, let hash, _, _, _):
            if let cached = entryRoot, cached.hash == hash {
                root = cached.root
            } else {
                root = EntryTree.root(names: validated.entrants ?? [], tickets: validated.tickets, groups: validated.groups)
                entryRoot = (hash, root!)
            }
            host = validated.excluded.compactMap { validated.nameIndex[$0].map(Int64.init) }.sorted()
        }
        let entrantsHash: String? = if case .list(_, let hash, _, _, _) = lock.spec { hash } else { nil }
        return LockRecord(round: round, commitment: commitment, poolHash: lock.hash, entrantsHash: entrantsHash, root: root,
                          hostExcluded: host, plan: plan)
    }

    mutating func relock() {
        lock = Self.makeLock(validated, winners: winnersThisSession, voided: voidedThisSession, extra: [], prize: currentPrize,
                             past: pastWinners)
    }

    /// This draw's winners for other draws' `excludeWinnersOf`: every winner in the chain not
    /// voided since, by name and (from the current list) by id, with the chain's head.
    public func winnersForExclusion(code: String) -> PastWinners {
        var names = Set<String>()
        var ids = Set<String>()
        for winner in keptWinners.held {
            names.insert(winner.description)
            if let listIDs = validated.ids, let index = validated.nameIndex[winner], !listIDs[index].isEmpty { ids.insert(listIDs[index]) }
        }
        return PastWinners(code: code, head: lastHash, records: recordCount, names: names, ids: ids)
    }

    /// The round's record; its winners come from the word stream keyed by `key` (the seed, or
    /// for a beacon-sealed round the key of docs/FAIRNESS.md §13). `key: nil` leaves them empty.
    func derive(round: Int, seed: Seed, key: Seed?, commitment: String, lock: Lock, frozen: Frozen,
                prize: String?, prizeIndex: Int?, replaces: Replacement?) -> RoundRecord {
        let n = lock.pool.count
        // A claim draw's alternates continue the same sampling past the winners (FAIRNESS.md §15).
        // The whole order (issue 45): every eligible entrant after the winners is the waiting list.
        let alternates = replaces != nil ? nil
            : config.waitlist ? Int(clamping: n) - frozen.count
            : config.claim.map { min($0.alternates, Int(clamping: n) - frozen.count) }
        let count = frozen.count + max(0, alternates ?? 0)
        let positions: [UInt64]
        let algorithm: String
        if let tickets = validated.tickets {
            algorithm = Fairness.weightedAlgorithm
            positions = key.map { key in Fairness.weightedPositions(seed: key, round: round, poolHash: Hex.decode(lock.hash)!, entropy: frozen.entropy,
                                                   weights: lock.pool.eligibleIndices().map { tickets[$0] }, count: count) } ?? []
        } else {
            algorithm = Fairness.algorithm
            positions = key.map { key in Fairness.winnerPositions(seed: key, round: round, poolHash: Hex.decode(lock.hash)!,
                                                 entropy: frozen.entropy, eligible: n, count: count) } ?? []
        }
        let picked = positions.map(lock.pool.element(at:))
        let out = Array(picked.prefix(frozen.count))
        // A reverse raffle's round that leaves one in names it: the winner (docs/FAIRNESS.md §21).
        var lastIn: DrawValue? = nil
        if config.reverse, replaces == nil, key != nil, n == UInt64(out.count) + 1 {
            let gone = Set(out)
            lastIn = (0..<n).lazy.map(lock.pool.element(at:)).first { !gone.contains($0) }
        }
        return RoundRecord(
            round: round, prize: prize, prizeIndex: prizeIndex, algorithm: algorithm, pool: lock.spec,
            poolHash: lock.hash, eligible: n, repeats: config.repeats, contributions: frozen.contributions.map(\.hex),
            audience: frozen.audience, entropy: Hex.encode(frozen.entropy), commitment: commitment, seed: seed.hex,
            winners: out, replaces: replaces,
            alternates: alternates == nil ? nil : Array(picked.dropFirst(frozen.count)), rehearsal: config.rehearsal,
            reverse: config.reverse && replaces == nil, lastIn: lastIn)
    }

    /// The eligible set of docs/FAIRNESS.md §3: exclusions, voided, earlier winners unless repeats, `extra`,
    /// and for a prize limited to groups, the entrants outside them.
    static func makeLock(_ validated: ValidatedConfig, winners: Set<DrawValue>, voided: Set<DrawValue>, extra: [DrawValue],
                         prize: Int?, past: [PastWinners] = []) -> Lock {
        var removed = validated.excluded.union(voided).union(extra)
        if !validated.config.repeats { removed.formUnion(winners) }
        let spec: PoolSpec
        switch validated.config.pool {
        case .range(let from, let to):
            let values = removed.compactMap { value -> Int64? in
                if case .number(let n) = value, n >= from, n <= to { return n }
                return nil
            }
            spec = .range(from: from, to: to, removed: values.sorted())
        case .list, .entries, .checkin, .books:
            let names = validated.entrants!
            var indices = Set(removed.compactMap { validated.nameIndex[$0].map(Int64.init) })
            var filter: GroupFilter? = nil
            if let prize, prize < validated.config.prizes.count, validated.config.prizes[prize].hasGroupFilter {
                let tier = validated.config.prizes[prize]
                let groupFilter = GroupFilter(only: tier.onlyGroups ?? [], except: tier.exceptGroups ?? [])
                for index in names.indices where !groupFilter.admits(validated.groups?[index] ?? "") {
                    indices.insert(Int64(index))
                }
                filter = groupFilter
            }
            // Winners of other draws, matched by id when both have one, else by name (FAIRNESS.md §3).
            var exclusions = [PastExclusion]()
            for other in past where validated.config.excludeWinnersOf.contains(where: { $0.code == other.code }) {
                var removed = [Int64]()
                for index in names.indices {
                    let id = validated.ids?[index] ?? ""
                    if other.names.contains(names[index]) || (!id.isEmpty && other.ids.contains(id)) { removed.append(Int64(index)) }
                }
                indices.formUnion(removed)
                exclusions.append(PastExclusion(code: other.code, head: other.head, records: other.records, removed: removed))
            }
            spec = .list(count: names.count, entrantsHash: validated.entrantsHash!, removed: indices.sorted(), groups: filter,
                         past: exclusions)
        }
        return Lock(spec: spec, hash: spec.poolHash, pool: EligiblePool(spec: spec, entrants: validated.entrants)!)
    }

    static func freeze(_ contributions: [Contribution], audience: String?, count: Int, prizeIndex: Int?) -> Frozen {
        let sorted = Array(Set(contributions).sorted().prefix(Fairness.maxContributions))
        return Frozen(contributions: sorted, audience: audience,
                      entropy: Fairness.entropyDigest(contributions: sorted, audience: audience),
                      count: count, prizeIndex: prizeIndex)
    }

    /// nil for none or blank; 1–32 ASCII digits, else `badAudience`.
    static func audienceNumber(_ raw: String?) throws(DrawError) -> String? {
        guard let raw else { return nil }
        let text = EntrantList.trim(raw)
        if text.isEmpty { return nil }
        guard text.utf8.count <= DrawLimits.maxAudienceDigits, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .badAudience
        }
        return text
    }

    /// A winner named as a number for a list of numeric names, or as a string for a range.
    static func alternateForms(of value: DrawValue) -> [DrawValue] {
        switch value {
        case .number(let n): [.name(String(n))]
        case .name(let s): Int64(EntrantList.trim(s)).map { [.number($0)] } ?? [.name(EntrantList.trim(s))]
        }
    }
}
