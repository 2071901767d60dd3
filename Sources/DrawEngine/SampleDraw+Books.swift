extension SampleDraw {
    /// A deterministic draw of ticket books (three coloured books, an excluded ticket, a void), for
    /// `tombola verify --sample-export books` and the cross-language tests (docs/FAIRNESS.md §3).
    public static func booksExport(seed: UInt64 = 1) -> String {
        var sample = SampleRandomness(seed: seed)
        var records = [DrawRecord]()
        let books = [TicketBook(name: "red", from: 1, to: 50, color: "#c62828"),
                     TicketBook(name: "blue", from: 1, to: 50, color: "#1565c0"),
                     TicketBook(name: "绿", from: 101, to: 130, color: "#2e7d32")]
        do {
            var draw = try Draw(config: DrawConfig(pool: .books(books), exclude: [.name("blue 7")], perStop: .count(3)))
            records.append(try draw.prepareCommitment(seed: sample.seed(), at: sample.now()))
            records += try draw.start(contributions: sample.contributions(3), audience: "217", at: sample.now())
            records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
            try draw.reveal()
            let noShow = draw.board[0].winners[1]
            records += try draw.void(round: 1, winner: noShow, reason: "no-show", contributions: sample.contributions(1),
                                     nextSeed: sample.seed(), at: sample.now())
            records += try draw.start(contributions: sample.contributions(2), at: sample.now())
            records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
        } catch {
            preconditionFailure("sample books draw failed: \(error.code)")
        }
        return DrawExport.json(code: "BOOKS", records: records)
    }
}
