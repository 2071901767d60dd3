import JSON
import Foundation
import Testing
@testable import DrawEngine

/// Weighted entries (tickets) of docs/FAIRNESS.md §5: the selection rule, its proportions, the
/// validation of detailed lists and backward compatibility with plain lists.
@Suite struct WeightedPoolTests {
    private static let people = [
        Entrant(name: "Ann", tickets: 1), Entrant(name: "Bob", tickets: 2), Entrant(name: "Cleo", tickets: 3),
        Entrant(name: "Dai", tickets: 4), Entrant(name: "李雷", tickets: 10),
    ]

    /// The rule as FAIRNESS.md words it, by a linear scan: t = uniform(W); the winner is the
    /// remaining position whose ticket interval holds t; its tickets leave the round.
    private func reference(seed: Seed, round: Int, poolHash: [UInt8], entropy: [UInt8], weights: [UInt64], count: Int) -> [UInt64] {
        var stream = WordStream(seed: seed, round: round, poolHash: poolHash, entropy: entropy, algorithm: Fairness.weightedAlgorithm)
        var left = weights
        var out = [UInt64]()
        for _ in 0..<count {
            var t = stream.uniform(left.reduce(0, +))
            var position = 0
            while t >= left[position] {
                t -= left[position]
                position += 1
            }
            out.append(UInt64(position))
            left[position] = 0
        }
        return out
    }

    @Test func fenwickSelectionEqualsTheLinearRule() {
        var random = SplitMix64(state: 31)
        for trial in 0..<300 {
            let n = Int(random.next() % 40) + 1
            let weights = (0..<n).map { _ in random.next() % 5 == 0 ? UInt64(1_000_000) : random.next() % 7 + 1 }
            let k = Int(random.next() % UInt64(n)) + 1
            let seed = Seed.random(using: &random)
            let poolHash = Fairness.bigEndian(random.next()) + [UInt8](repeating: UInt8(trial % 256), count: 24)
            let entropy = [UInt8](repeating: 3, count: 32)
            let fast = Fairness.weightedPositions(seed: seed, round: trial + 1, poolHash: poolHash, entropy: entropy, weights: weights, count: k)
            let slow = reference(seed: seed, round: trial + 1, poolHash: poolHash, entropy: entropy, weights: weights, count: k)
            #expect(fast == slow, "trial \(trial) weights \(weights) k \(k)")
            #expect(Set(fast).count == k)
        }
    }

    @Test func singleWinnersFollowTheTickets() {
        let weights: [UInt64] = [1, 2, 3, 4, 10]
        var counts = [Int](repeating: 0, count: weights.count)
        var random = SplitMix64(state: 2026)
        let entropy = [UInt8](repeating: 5, count: 32), poolHash = [UInt8](repeating: 6, count: 32)
        let draws = 40_000
        for round in 1...draws {
            let p = Fairness.weightedPositions(seed: .random(using: &random), round: round, poolHash: poolHash, entropy: entropy,
                                               weights: weights, count: 1)[0]
            counts[Int(p)] += 1
        }
        let expected = weights.map { Double(draws) * Double($0) / 20 }
        let statistic = chiSquare(counts, expected)
        // p = 0.001 critical value, 4 degrees of freedom.
        #expect(statistic < 18.47, "chi-square \(statistic), seed 2026, counts \(counts)")
    }

    @Test func engineRoundsWithRepeatsFollowTheTickets() throws {
        var harness = try Harness(DrawConfig(pool: .entries(Self.people), repeats: true), seed: 8)
        var counts = [String: Int]()
        let rounds = 4_000
        for _ in 0..<rounds { counts[try harness.round(contributions: 0)[0].description, default: 0] += 1 }
        let observed = Self.people.map { counts[$0.name] ?? 0 }
        let expected = Self.people.map { Double(rounds) * Double($0.tickets) / 20 }
        let statistic = chiSquare(observed, expected)
        #expect(statistic < 18.47, "chi-square \(statistic), seed 8, counts \(counts)")
        #expect(harness.verify().passed)
        guard case .round(let round) = harness.records.last(where: { $0.kind == "round" })?.body else { Issue.record("no round"); return }
        #expect(round.algorithm == Fairness.weightedAlgorithm)
    }

    @Test func aWinnersTicketsLeaveThePoolWithoutRepeats() throws {
        var harness = try Harness(DrawConfig(pool: .entries(Self.people), perStop: .count(2)), seed: 9)
        var seen = [DrawValue]()
        for _ in 0..<2 { seen += try harness.round() }
        seen += try harness.round()  // one left
        #expect(seen.count == 5 && Set(seen).count == 5)
        #expect(throws: DrawError.poolExhausted) { try harness.round() }
        let report = harness.verify()
        #expect(report.passed, "\(report.checks.filter { !$0.ok }.map(\.line))")
    }

    @Test func oneTicketEachIsAPlainListWithTheSameWinners() throws {
        let names = ["Ann", "Bob", "Cleo", "Dai", "Eve", "Finn"]
        var plain = try Harness(DrawConfig(pool: .list(names), perStop: .count(3)), seed: 12)
        var detailed = try Harness(DrawConfig(pool: .entries(names.map { Entrant(name: $0) }), perStop: .count(3)), seed: 12)
        #expect(detailed.draw.config.pool == .list(names))
        #expect(try plain.round() == detailed.round())
        #expect(plain.records.map(\.hash) == detailed.records.map(\.hash))
    }

    @Test(arguments: [
        ([Entrant(name: "Ann", tickets: 2), Entrant(name: " Ann ")], DrawError.duplicateEntrant),
        ([Entrant(name: "Ann", id: "7"), Entrant(name: "Bob", id: " 7")], .duplicateEntrant),
        ([Entrant(name: "Ann", tickets: 0), Entrant(name: "Bob")], .badTickets),
        ([Entrant(name: "Ann", tickets: 1_000_001), Entrant(name: "Bob")], .badTickets),
        ([Entrant(name: "Ann", group: "a\u{1}b"), Entrant(name: "Bob")], .badGroup),
        ([Entrant(name: "Ann", group: String(repeating: "g", count: 101)), Entrant(name: "Bob")], .badGroup),
        ([Entrant(name: "", tickets: 2), Entrant(name: "Bob")], .badEntrant),
        ([Entrant(name: "A\nB", tickets: 2), Entrant(name: "Bob")], .badEntrant),
        ([Entrant(name: "Ann", tickets: 5)], .poolTooSmall),
    ])
    func detailedListsAreRefused(entrants: [Entrant], error: DrawError) throws {
        var draw = try Draw()
        let before = Snapshot(draw)
        #expect(throws: error) { try draw.configure(DrawConfig(pool: .entries(entrants))) }
        #expect(Snapshot(draw) == before)
    }

    @Test func configJSONStaysBackwardCompatible() throws {
        func decode(_ text: String) throws -> DrawConfig { try DrawConfig(json: JSONValue.parse(text)) }
        func encode(_ config: DrawConfig) -> String { config.json.canonicalString }
        #expect(try decode(#"{"pool":{"kind":"list","entrants":["Ann","Bob"]}}"#).pool == .list(["Ann", "Bob"]))
        #expect(try decode(#"{"pool":{"kind":"list","text":"Ann\nBob"}}"#).pool == .list(["Ann\nBob"]))
        let mixed = try decode(#"{"pool":{"kind":"list","entrants":["Ann",{"name":"Bob","tickets":3,"group":"Sales","id":"E2"}]}}"#)
        #expect(mixed.pool == .entries([Entrant(name: "Ann"), Entrant(name: "Bob", id: "E2", tickets: 3, group: "Sales")]))
        let encoded = encode(mixed)
        #expect(try decode(encoded) == mixed)
        #expect(throws: (any Error).self) { try decode(#"{"pool":{"kind":"list","entrants":[{"tickets":3}]}}"#) }
        // Old prizes decode without group limits and encode without new keys.
        let old = try decode(#"{"prizes":[{"name":"1st","count":1}]}"#)
        #expect(old.prizes == [Prize(name: "1st", count: 1)])
        #expect(!encode(old).contains("Groups"))
    }

    @Test func idsAreKeptForMatchingButLeftOutOfThePublicSettingsAndTheLock() throws {
        let draw = try Draw(config: DrawConfig(pool: .entries([Entrant(name: "Ann", id: " E1 ", tickets: 2),
                                                               Entrant(name: "Bob", id: "E2", group: "IT")])))
        #expect(draw.config.pool == .entries([Entrant(name: "Ann", id: "E1", tickets: 2), Entrant(name: "Bob", id: "E2", group: "IT")]))
        #expect(!draw.config.publicJSON.canonicalString.contains("E1"))
        #expect(draw.config.publicJSON["pool"]?["entrants"]?.arrayValue?.first == .object(["name": .string("Ann"), "tickets": .int(2)]))
        let plain = try Draw(config: DrawConfig(pool: .entries([Entrant(name: "Ann", id: "E1"), Entrant(name: "Bob", id: "E2")])))
        #expect(plain.config.publicJSON["pool"] == .object(["kind": .string("list"), "entrants": .array([.string("Ann"), .string("Bob")])]))
        let unnamed = try Draw(config: DrawConfig(pool: .list(["Ann", "Bob"])))
        #expect(plain.commit == nil && plain.remaining == unnamed.remaining)
        // Ids never enter the hash: the same names lock the same pool with or without them.
        var a = plain, b = unnamed
        _ = try a.prepareCommitment(seed: Seed(bytes: [UInt8](repeating: 1, count: 32))!, at: 0)
        _ = try b.prepareCommitment(seed: Seed(bytes: [UInt8](repeating: 1, count: 32))!, at: 0)
        #expect(a.commit?.poolHash == b.commit?.poolHash)
    }

    @Test func weightedEntrantsRecordCarriesTheTickets() throws {
        var harness = try Harness(DrawConfig(pool: .entries(Self.people)), seed: 4)
        try harness.round()
        guard case .entrants(let hash, let names, let tickets, let groups, _) = harness.records.first(where: { $0.kind == "entrants" })?.body
        else { Issue.record("no entrants record"); return }
        #expect(names == Self.people.map(\.name) && tickets == [1, 2, 3, 4, 10] && groups == nil)
        let object = JSONValue.object(["names": .array(names.map { .string($0) }), "tickets": .array([1, 2, 3, 4, 10].map { .int($0) })])
        #expect(hash == Hashing.sha256Hex(object.canonicalBytes))
    }

    @Test func theVerifierCatchesChangedTickets() throws {
        var harness = try Harness(DrawConfig(pool: .entries(Self.people)), seed: 4)
        try harness.round()
        var json = harness.records.map(\.json)
        let e = harness.records.firstIndex { $0.kind == "entrants" }!
        // Give Ann 50 tickets, fix the list hash and the record hash: the pool hash no longer fits.
        guard var members = json[e].objectValue else { Issue.record("not an object"); return }
        members["tickets"] = .array([50, 2, 3, 4, 10].map { .int($0) })
        members["entrantsHash"] = .string(EntrantList.hash(names: Self.people.map(\.name), tickets: [50, 2, 3, 4, 10], groups: nil))
        members["hash"] = nil
        members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
        json[e] = .object(members)
        #expect(!RoundVerifier.verify(records: json).passed)
        // A weighted round relabelled as unweighted fails too.
        var relabelled = harness.records.map(\.json)
        let r = relabelled.lastIndex { $0["kind"]?.stringValue == "round" }!
        guard var round = relabelled[r].objectValue else { Issue.record("not an object"); return }
        round["algorithm"] = .string(Fairness.algorithm)
        relabelled[r] = .object(round)
        let report = RoundVerifier.verify(records: relabelled)
        #expect(!report.passed)
    }

    private func chiSquare(_ observed: [Int], _ expected: [Double]) -> Double {
        zip(observed, expected).reduce(0) { $0 + (Double($1.0) - $1.1) * (Double($1.0) - $1.1) / $1.1 }
    }
}
