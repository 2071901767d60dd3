import JSON

/// The export of docs/FAIRNESS.md §9: `{"algorithm","code","format","records":[…]}`.
public enum DrawExport {
    public static let format = "tombola-export-v2"

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
        var sample = SampleRandomness(seed: seed)
        var records = [DrawRecord]()
        do {
            var draw = try Draw(config: DrawConfig(pool: .range(from: 1, to: 500), exclude: [.number(7), .number(13)],
                                                  perStop: .count(3), prizes: [Prize(name: "3rd prize", count: 4), Prize(name: "2nd prize", count: 1)]))
            records.append(try draw.prepareCommitment(seed: sample.seed(), at: sample.now()))
            for audience in ["4711", nil] {
                records += try draw.start(contributions: sample.contributions(5), audience: audience, at: sample.now())
                records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
                try draw.reveal()
            }
            let noShow = draw.board[0].winners[1]
            records += try draw.void(round: 1, winner: noShow, reason: "no-show", contributions: sample.contributions(2),
                                     nextSeed: sample.seed(), at: sample.now())
            records += try draw.start(contributions: [], at: sample.now())
            records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
            try draw.reveal()
            records.append(try draw.clear(at: sample.now()))
            try draw.configure(DrawConfig(pool: .list(["Ann", "Bob", "Zoë", "李雷", "韩梅梅", "\"Q\" \\ Smith", "Ann"]),
                                          exclude: [.name("Bob")], perStop: .count(2)))
            records += try draw.start(contributions: sample.contributions(3), audience: "0042", at: sample.now())
            records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
            try draw.reveal()
            // A restart: the pending commitment is abandoned and a fresh one published.
            var restored = try Draw(config: draw.config, restoring: records)
            records.append(try restored.prepareCommitment(seed: sample.seed(), at: sample.now()))
            records += try restored.start(contributions: sample.contributions(1), at: sample.now())
            records += try restored.stop(at: sample.now(), nextSeed: sample.seed())
        } catch {
            preconditionFailure("sample draw failed: \(error.code)")
        }
        return DrawExport.json(code: "SAMPLE", records: records)
    }

    /// A deterministic draw of a weighted list with prizes limited to groups (a void included),
    /// for `tombola verify --sample-export pools` and the cross-language tests.
    public static func poolsExport(seed: UInt64 = 1) -> String {
        var sample = SampleRandomness(seed: seed)
        var records = [DrawRecord]()
        let staff = [
            Entrant(name: "Ann", id: "E1", tickets: 3, group: "Sales"), Entrant(name: "Bob", id: "E2", tickets: 1, group: "Sales"),
            Entrant(name: "Zoë", id: "E3", tickets: 5, group: "IT"), Entrant(name: "李雷", id: "E4", tickets: 2, group: "IT"),
            Entrant(name: "韩梅梅", id: "E5", tickets: 1, group: "研发"), Entrant(name: "\"Q\" \\ Smith", id: "E6", tickets: 7),
            Entrant(name: "Eve", id: "E7", tickets: 1, group: "Board"), Entrant(name: "Finn", id: "E8", tickets: 4, group: "IT"),
        ]
        do {
            var draw = try Draw(config: DrawConfig(pool: .entries(staff), exclude: [.name("Bob")], perStop: .count(2), prizes: [
                Prize(name: "IT prize", count: 2, onlyGroups: ["IT"]),
                Prize(name: "Main prize", count: 2, exceptGroups: ["Board"]),
            ]))
            records.append(try draw.prepareCommitment(seed: sample.seed(), at: sample.now()))
            records += try draw.start(contributions: sample.contributions(4), audience: "17", at: sample.now())
            records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
            try draw.reveal()
            let noShow = draw.board[0].winners[0]
            records += try draw.void(round: 1, winner: noShow, reason: "no-show", contributions: sample.contributions(1),
                                     nextSeed: sample.seed(), at: sample.now())
            records += try draw.start(contributions: sample.contributions(2), at: sample.now())
            records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
            try draw.reveal()
            records.append(try draw.clear(at: sample.now()))
            var unlimited = draw.config
            unlimited.prizes = []
            unlimited.repeats = true
            try draw.configure(unlimited)
            records += try draw.start(contributions: sample.contributions(3), at: sample.now())
            records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
        } catch {
            preconditionFailure("sample pools draw failed: \(error.code)")
        }
        return DrawExport.json(code: "POOLS", records: records)
    }
}

extension SampleDraw {
    /// The export of a main draw that excludes the winners of a lunch draw (`excludeWinnersOf`),
    /// matched by id under another spelling and by name, for `tombola verify --sample-export past`.
    /// Its `pastWinners` heads refer to the lunch draw's chain, built here from the same seed.
    public static func pastExport(seed: UInt64 = 1) -> String { pastExports(seed: seed).main }

    /// The main draw's export and the lunch draw's (for `tombola verify MAIN --past LUNCH`).
    public static func pastExports(seed: UInt64 = 1) -> (main: String, lunch: String) {
        var sample = SampleRandomness(seed: seed)
        let staff = (1...8).map { Entrant(name: "Staff \($0)", id: "E\($0)") }
        var records = [DrawRecord]()
        var lunchRecords = [DrawRecord]()
        do {
            var lunch = try Draw(config: DrawConfig(pool: .entries(staff), perStop: .count(2)))
            lunchRecords.append(try lunch.prepareCommitment(seed: sample.seed(), at: sample.now()))
            lunchRecords += try lunch.start(contributions: [], at: sample.now())
            lunchRecords += try lunch.stop(at: sample.now(), nextSeed: sample.seed())
            try lunch.reveal()
            let won = lunch.winnersForExclusion(code: "LUNCH")
            // The main list spells one lunch winner differently (matched by id) and adds guests.
            let main = staff.map { entrant in
                won.names.contains(entrant.name) && entrant.id == staff.first(where: { won.names.contains($0.name) })?.id
                    ? Entrant(name: entrant.name.uppercased(), id: entrant.id) : entrant
            } + [Entrant(name: "Guest 1"), Entrant(name: "Guest 2")]
            var draw = try Draw(config: DrawConfig(pool: .entries(main), perStop: .count(3), excludeWinnersOf: [PastDraw(code: "LUNCH")]))
            records.append(try draw.prepareCommitment(seed: sample.seed(), at: sample.now()))
            records += try draw.start(contributions: [], audience: "42", at: sample.now(), pastWinners: [won])
            records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
            try draw.reveal()
            records += try draw.start(contributions: [], at: sample.now(), pastWinners: [won])
            records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
        } catch {
            preconditionFailure("sample past-winners draw failed: \(error.code)")
        }
        return (DrawExport.json(code: "MAIN", records: records), DrawExport.json(code: "LUNCH", records: lunchRecords))
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

extension SampleDraw {
    /// quicknet round 1000 (public data): what the sealed round of `beaconExport` is drawn from.
    public static let quicknetRound1000 = (
        randomness: "fe290beca10872ef2fb164d2aa4442de4566183ec51c56ff3cd603d930e54fdd",
        signature: "b44679b9a59af2ec876b1a6b1ad52ea9b1615fc3982b19576350f93447cb1125e342b73a8dd2bacbe47e4b6b63ed5e39")

    /// A deterministic draw with a local-proof round and a round sealed by drand quicknet (round 996
    /// abandoned by the host, then round 1000, a real value), dated in August 2023 so that the lock times pick
    /// those rounds: `tombola verify --sample-export beacon` (docs/FAIRNESS.md §13).
    public static func beaconExport(seed: UInt64 = 1) -> String {
        var sample = SampleRandomness(seed: seed, clock: 1_692_806_300_000)
        var records = [DrawRecord]()
        let relays = BeaconChain.defaultRelays
        do {
            var draw = try Draw(config: DrawConfig(pool: .list(["Ann", "Bob", "Zoë", "李雷", "韩梅梅", "Finn", "Eve", "Olu"]),
                                                  perStop: .count(2)))
            records.append(try draw.prepareCommitment(seed: sample.seed(), at: sample.now()))
            records += try draw.start(contributions: sample.contributions(3), at: sample.now())
            records += try draw.stop(at: sample.now(), nextSeed: sample.seed())
            try draw.reveal()
            records += try draw.start(contributions: sample.contributions(4), audience: "2023", at: sample.now())
            // R = 996 (due 1_692_806_352_000), given up by the host 10 s after it was due (§13 step 5: the
            // only way a sealed round ends without its value); the next Stop's R = 1000.
            records += try draw.stopSealed(chain: .quicknet, relays: relays, at: 1_692_806_350_500)
            records.append(try draw.voidSealed(reason: "abandoned by the host: no relay answered round 996", at: 1_692_806_362_000))
            records += try draw.stopSealed(chain: .quicknet, relays: relays, at: 1_692_806_362_500)
            records += try draw.finishSealed(randomness: quicknetRound1000.randomness, signature: quicknetRound1000.signature,
                                             relays: relays, at: 1_692_806_364_600, nextSeed: sample.seed())
            try draw.reveal()
        } catch {
            preconditionFailure("sample beacon draw failed: \(error.code)")
        }
        return DrawExport.json(code: "BEACON", records: records)
    }
}
