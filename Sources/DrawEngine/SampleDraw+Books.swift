extension SampleDraw {
    /// A deterministic draw of ticket books (three coloured books, an excluded ticket, a void), for
    /// `tombola verify --sample-export books` and the cross-language tests (docs/FAIRNESS.md §3).
    public static func booksExport(seed: UInt64 = 1) -> String {
        var random = SplitMix64(state: seed)
        var clock: Int64 = 1_764_455_400_000
        var records = [DrawRecord]()
        func now() -> Int64 { clock += 1_250; return clock }
        func contributions(_ count: Int) -> [Contribution] {
            (0..<count).map { _ in
                Contribution(hex: Hex.encode(Fairness.bigEndian(random.next()) + Fairness.bigEndian(random.next())))!
            }
        }
        let books = [TicketBook(name: "red", from: 1, to: 50, color: "#c62828"),
                     TicketBook(name: "blue", from: 1, to: 50, color: "#1565c0"),
                     TicketBook(name: "绿", from: 101, to: 130, color: "#2e7d32")]
        do {
            var draw = try Draw(config: DrawConfig(pool: .books(books), exclude: [.name("blue 7")], perStop: .count(3)))
            records.append(try draw.prepareCommitment(seed: .random(using: &random), at: now()))
            records += try draw.start(contributions: contributions(3), audience: "217", at: now())
            records += try draw.stop(at: now(), nextSeed: .random(using: &random))
            try draw.reveal()
            let noShow = draw.board[0].winners[1]
            records += try draw.void(round: 1, winner: noShow, reason: "no-show", contributions: contributions(1),
                                     nextSeed: .random(using: &random), at: now())
            records += try draw.start(contributions: contributions(2), at: now())
            records += try draw.stop(at: now(), nextSeed: .random(using: &random))
        } catch {
            preconditionFailure("sample books draw failed: \(error.code)")
        }
        return DrawExport.json(code: "BOOKS", records: records)
    }
}
