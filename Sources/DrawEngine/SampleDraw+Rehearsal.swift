extension SampleDraw {
    /// A deterministic draw with a rehearsal (two rehearsal rounds and a void, wiped), then the
    /// real event (a round, a Clear, a round), for `tombola verify --sample-export rehearsal` and
    /// the cross-language tests (docs/FAIRNESS.md §19).
    public static func rehearsalExport(seed: UInt64 = 1) -> String {
        var sample = SampleRandomness(seed: seed)
        var records = [DrawRecord]()
        do {
            var config = DrawConfig(pool: .range(from: 1, to: 200), perStop: .count(2), rehearsal: true)
            var draw = try Draw(config: config)
            records.append(try draw.prepareCommitment(seed: sample.seed(), at: sample.now()))
            for _ in 0..<2 {
                records += try draw.start(contributions: sample.contributions(2), at: sample.now())
                records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
                try draw.reveal()
            }
            records += try draw.void(round: 2, winner: draw.board.first { $0.round == 2 }!.winners[0], reason: "rehearsal no-show",
                                     contributions: sample.contributions(1), nextSeed: sample.seed(), at: sample.now())
            records.append(try draw.clear(at: sample.now(), rehearsal: true))
            config.rehearsal = false
            try draw.configure(config)
            records += try draw.start(contributions: sample.contributions(3), audience: "45", at: sample.now())
            records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
            try draw.reveal()
            records.append(try draw.clear(at: sample.now()))
            records += try draw.start(contributions: sample.contributions(1), at: sample.now())
            records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
        } catch {
            preconditionFailure("sample rehearsal draw failed: \(error.code)")
        }
        return DrawExport.json(code: "REHEARSE", records: records)
    }
}
