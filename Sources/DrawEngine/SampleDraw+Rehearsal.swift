extension SampleDraw {
    /// A deterministic draw with a rehearsal (two rehearsal rounds and a void, wiped), then the
    /// real event (a round, a Clear, a round), for `tombola verify --sample-export rehearsal` and
    /// the cross-language tests (docs/FAIRNESS.md §19).
    public static func rehearsalExport(seed: UInt64 = 1) -> String {
        var random = SplitMix64(state: seed)
        var clock: Int64 = 1_764_455_400_000
        var records = [DrawRecord]()
        func now() -> Int64 { clock += 1_250; return clock }
        func contributions(_ count: Int) -> [Contribution] {
            (0..<count).map { _ in
                Contribution(hex: Hex.encode(Fairness.bigEndian(random.next()) + Fairness.bigEndian(random.next())))!
            }
        }
        do {
            var config = DrawConfig(pool: .range(from: 1, to: 200), perStop: .count(2), rehearsal: true)
            var draw = try Draw(config: config)
            records.append(try draw.prepareCommitment(seed: .random(using: &random), at: now()))
            for _ in 0..<2 {
                records += try draw.start(contributions: contributions(2), at: now())
                records += try draw.stop(at: now(), nextSeed: .random(using: &random))
                try draw.reveal()
            }
            records += try draw.void(round: 2, winner: draw.board.first { $0.round == 2 }!.winners[0], reason: "rehearsal no-show",
                                     contributions: contributions(1), nextSeed: .random(using: &random), at: now())
            records.append(try draw.clear(at: now(), rehearsal: true))
            config.rehearsal = false
            try draw.configure(config)
            records += try draw.start(contributions: contributions(3), audience: "45", at: now())
            records += try draw.stop(at: now(), nextSeed: .random(using: &random))
            try draw.reveal()
            records.append(try draw.clear(at: now()))
            records += try draw.start(contributions: contributions(1), at: now())
            records += try draw.stop(at: now(), nextSeed: .random(using: &random))
        } catch {
            preconditionFailure("sample rehearsal draw failed: \(error.code)")
        }
        return DrawExport.json(code: "REHEARSE", records: records)
    }
}
