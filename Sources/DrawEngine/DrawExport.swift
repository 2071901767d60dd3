import JSON

/// The export of docs/FAIRNESS.md §9: `{"algorithm","code","format","records":[…]}`.
public enum DrawExport {
    public static let format = "tombola-export-v1"

    /// Canonical JSON (sorted keys); `extra` adds top-level keys (verifiers ignore them).
    public static func json(code: String, records: [DrawRecord], extra: [String: JSONValue] = [:]) -> String {
        var members = extra
        members["format"] = .string(format)
        members["code"] = .string(code)
        members["algorithm"] = .string(Fairness.algorithm)
        members["records"] = .array(records.map(\.json))
        return JSONValue.object(members).canonicalString
    }
}

/// A deterministic demo draw that touches every record kind, for `tombola verify
/// --sample-export`, the cross-language tests and the pages' recheck tests.
public enum SampleDraw {
    public static func export(seed: UInt64 = 1) -> String {
        var random = SplitMix64(state: seed)
        var clock: Int64 = 1_764_455_400_000
        var records = [DrawRecord]()
        func now() -> Int64 { clock += 1_250; return clock }
        func contributions(_ count: Int) -> [Contribution] {
            (0..<count).map { _ in
                let a = random.next(), b = random.next()
                return Contribution(hex: Hex.encode(Fairness.bigEndian(a) + Fairness.bigEndian(b)))!
            }
        }
        do {
            var draw = try Draw(config: DrawConfig(pool: .range(from: 1, to: 500), exclude: [.number(7), .number(13)],
                                                  perStop: .count(3), prizes: [Prize(name: "3rd prize", count: 4), Prize(name: "2nd prize", count: 1)]))
            records.append(try draw.prepareCommitment(seed: .random(using: &random), at: now()))
            for audience in ["4711", nil] {
                try draw.start(contributions: contributions(5), audience: audience, at: now())
                records += try draw.stop(at: now(), nextSeed: .random(using: &random))
                try draw.reveal()
            }
            let noShow = draw.board[0].winners[1]
            records += try draw.void(round: 1, winner: noShow, reason: "no-show", contributions: contributions(2),
                                     nextSeed: .random(using: &random), at: now())
            try draw.start(contributions: [], at: now())
            records += try draw.stop(at: now(), nextSeed: .random(using: &random))
            try draw.reveal()
            records.append(try draw.clear(at: now()))
            try draw.configure(DrawConfig(pool: .list(["Ann", "Bob", "Zoë", "李雷", "韩梅梅", "\"Q\" \\ Smith", "Ann"]),
                                          exclude: [.name("Bob")], perStop: .count(2)))
            try draw.start(contributions: contributions(3), audience: "0042", at: now())
            records += try draw.stop(at: now(), nextSeed: .random(using: &random))
            try draw.reveal()
            // A restart: the pending commitment is abandoned and a fresh one published.
            var restored = try Draw(config: draw.config, restoring: records)
            records.append(try restored.prepareCommitment(seed: .random(using: &random), at: now()))
            try restored.start(contributions: contributions(1), at: now())
            records += try restored.stop(at: now(), nextSeed: .random(using: &random))
        } catch {
            preconditionFailure("sample draw failed: \(error.code)")
        }
        return DrawExport.json(code: "SAMPLE", records: records)
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a small seeded generator for samples and tests.
/// Not for seeds in production.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
