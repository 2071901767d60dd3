@testable import DrawEngine

/// Drives a `Draw` the way the App does: seeds from a seeded generator, a manual clock, and
/// every returned record kept in order as storage would.
struct Harness {
    var draw: Draw
    var random: SplitMix64
    var records: [DrawRecord] = []
    var now: Int64 = 1_764_455_400_000
    let seed: UInt64

    init(_ config: DrawConfig = .standard, seed: UInt64) throws(DrawError) {
        self.seed = seed
        draw = try Draw(config: config)
        random = SplitMix64(state: seed)
        let first = Seed.random(using: &random)
        records.append(try draw.prepareCommitment(seed: first, at: tick()))
    }

    mutating func tick() -> Int64 {
        now += 1_000
        return now
    }

    mutating func contributions(_ count: Int) -> [Contribution] {
        (0..<count).map { _ in
            Contribution(hex: Hex.encode(Fairness.bigEndian(random.next()) + Fairness.bigEndian(random.next())))!
        }
    }

    /// Start, stop, reveal; returns the round's winners.
    @discardableResult
    mutating func round(contributions count: Int = 2, audience: String? = nil,
                        pastWinners: [PastWinners] = []) throws(DrawError) -> [DrawValue] {
        let given = contributions(count)
        records += try draw.start(contributions: given, audience: audience, at: tick(), pastWinners: pastWinners)
        let next = Seed.random(using: &random)
        let new = try draw.stop(at: tick(), nextSeed: next)
        records += new
        try draw.reveal()
        for record in new { if case .round(let round) = record.body { return round.winners } }
        preconditionFailure("stop returned no round record")
    }

    @discardableResult
    mutating func void(round: Int, winner: DrawValue, reason: String = "no-show") throws(DrawError) -> [DrawValue] {
        let next = Seed.random(using: &random)
        let new = try draw.void(round: round, winner: winner, reason: reason, contributions: contributions(1),
                                nextSeed: next, at: tick())
        records += new
        for record in new { if case .round(let r) = record.body { return r.winners } }
        preconditionFailure("void returned no round record")
    }

    var export: String { DrawExport.json(code: "TEST", records: records) }

    func verify() -> VerificationReport { RoundVerifier.verify(records: records.map(\.json)) }
}

/// Everything a page sees of a draw, to check that refused commands change nothing.
struct Snapshot: Equatable {
    let phase: DrawPhase
    let config: DrawConfig
    let board: [BoardRound]
    let commit: PendingCommit?
    let remaining: UInt64
    let recordCount: Int
    let lastHash: String

    init(_ draw: Draw) {
        phase = draw.phase
        config = draw.config
        board = draw.board
        commit = draw.commit
        remaining = draw.remaining
        recordCount = draw.recordCount
        lastHash = draw.lastHash
    }
}
