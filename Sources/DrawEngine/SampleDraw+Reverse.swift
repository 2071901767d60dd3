extension SampleDraw {
    /// A deterministic reverse raffle (docs/FAIRNESS.md §21): a list of twelve, one excluded by the
    /// host, drawn out four at a time until one is left; then, after a Clear, a range 1–30 drawn out
    /// ten at a time. For `tombola verify --sample-export reverse` and the cross-language tests.
    public static func reverseExport(seed: UInt64 = 1) -> String {
        var sample = SampleRandomness(seed: seed)
        var records = [DrawRecord]()
        let names = ["Ann", "Bo", "Cai", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kai", "李雷"]
        do {
            var draw = try Draw(config: DrawConfig(pool: .list(names), exclude: [.name("Bo")], perStop: .count(4), reverse: true))
            records.append(try draw.prepareCommitment(seed: sample.seed(), at: sample.now()))
            func round(_ people: Int) throws(DrawError) {
                records += try draw.start(contributions: sample.contributions(people), at: sample.now())
                records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
                try draw.reveal()
            }
            for people in [3, 1, 2] { try round(people) }
            records.append(try draw.clear(at: sample.now()))
            try draw.configure(DrawConfig(pool: .range(from: 1, to: 30), perStop: .count(10), reverse: true))
            for people in [2, 2, 1] { try round(people) }
        } catch {
            preconditionFailure("sample reverse raffle failed: \(error.code)")
        }
        return DrawExport.json(code: "REVERSE", records: records)
    }
}
