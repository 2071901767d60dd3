import JSON
import Testing
@testable import DrawEngine

/// The reverse raffle (docs/FAIRNESS.md §21): each round draws out the next batch of those still
/// in, never the last one; the round that leaves one names it (`lastIn`), and Start then refuses.
@Suite struct ReverseRaffleTests {
    static func rounds(_ h: Harness) -> [RoundRecord] {
        h.records.compactMap { record -> RoundRecord? in
            if case .round(let r) = record.body { return r }
            return nil
        }
    }

    @Test func batchesAreDrawnOutUntilTheLastOneInWins() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 23), exclude: [.number(5)], perStop: .count(7), reverse: true),
                                  seed: 45)
        var out = Set<DrawValue>()
        for expected in [7, 7, 7] {
            #expect(harness.draw.nextPlan.count == expected)
            out.formUnion(try harness.round())
        }
        // 22 in, 21 drawn out: the last round drew 7 and left one, who wins.
        let rounds = Self.rounds(harness)
        #expect(rounds.map(\.winners.count) == [7, 7, 7] && rounds.allSatisfy(\.reverse))
        #expect(rounds.map(\.lastIn).prefix(2).allSatisfy { $0 == nil })
        let last = try #require(rounds.last?.lastIn)
        #expect(!out.contains(last) && last != .number(5) && out.count == 21)
        #expect(harness.records.last(where: { $0.kind == "round" })?.json["lastIn"] == last.json)
        // Nobody is left to draw out; a void never re-draws someone drawn out.
        #expect(harness.draw.nextPlan.count == 0)
        #expect(throws: DrawError.reverseDone) { try harness.draw.start(contributions: [], at: harness.tick()) }
        #expect(throws: DrawError.badReverse) {
            try harness.draw.void(round: 1, winner: rounds[0].winners[0], reason: "no-show", nextSeed: .random(using: &harness.random),
                                  at: harness.tick())
        }
        let report = harness.verify()
        #expect(report.passed)
        #expect(report.checks.filter { $0.notes.contains { $0.hasPrefix("REVERSE") } }.count == 3)
        #expect(report.checks.contains { $0.notes.contains("REVERSE: round 3 draws out 7; the last one in, \(last), wins") })
        // The settings carry the flag only when set; read back, the draw refuses Start the same way.
        #expect(try DrawConfig(json: harness.draw.config.json).reverse && DrawConfig.standard.json["reverse"] == nil)
        var restored = try Draw(config: harness.draw.config, restoring: harness.records)
        _ = try restored.prepareCommitment(seed: .random(using: &harness.random), at: harness.tick())
        #expect(throws: DrawError.reverseDone) { try restored.start(contributions: [], at: harness.tick()) }
    }

    @Test func anotherDrawExcludesTheLastOneInNotThoseDrawnOut() throws {
        var harness = try Harness(DrawConfig(pool: .list(["Ann", "Bo", "Cai", "Dee", "Eli"]), perStop: .count(2), reverse: true), seed: 8)
        #expect(harness.draw.winnersForExclusion(code: "REV").names.isEmpty)
        _ = try harness.round()
        // Drawn out is not won: after a round that leaves three in, nobody has won yet.
        #expect(harness.draw.winnersForExclusion(code: "REV").names.isEmpty)
        _ = try harness.round()
        let last = try #require(Self.rounds(harness).last?.lastIn)
        let won = harness.draw.winnersForExclusion(code: "REV")
        #expect(won.names == [last.description])
        // The verifiers' count (tombola verify --past, the event pack) agrees, read back from the export.
        let records = try JSONValue.parse(DrawExport.json(code: "REV", records: harness.records))["records"]!.arrayValue!
        #expect(PastWinnersCheck.heldNames(records, records: records.count) == [last.description])
        // Restored from its records, the draw says the same.
        let restored = try Draw(config: harness.draw.config, restoring: harness.records)
        #expect(restored.winnersForExclusion(code: "REV").names == [last.description])
    }

    @Test func theLastBatchIsCutSoThatOneStaysIn() throws {
        var harness = try Harness(DrawConfig(pool: .list(["Ann", "Bo", "Cai", "Dee", "Eli"]), perStop: .all, reverse: true), seed: 3)
        #expect(try harness.round().count == 4)
        #expect(Self.rounds(harness).last?.lastIn != nil && harness.verify().passed)
    }

    @Test func settingsThatDoNotFitAReverseRaffleAreRefused() throws {
        let pool = PoolConfig.range(from: 1, to: 100)
        for config in [DrawConfig(pool: pool, prizes: [Prize(name: "Car", count: 1)], reverse: true),
                       DrawConfig(pool: pool, repeats: true, reverse: true),
                       DrawConfig(pool: pool, beacon: true, reverse: true),
                       DrawConfig(pool: pool, waitlist: true, reverse: true),
                       DrawConfig(pool: .range(from: 1, to: 10_001), reverse: true)] {
            #expect(throws: DrawError.badReverse) { try Draw(config: config) }
        }
        _ = try Draw(config: DrawConfig(pool: .range(from: 1, to: 10_000), reverse: true))
    }

    @Test func aForgedLastOneInFailsRuleV2() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 4), perStop: .count(3), reverse: true), seed: 8)
        let out = try harness.round()
        let index = try #require(harness.records.lastIndex { $0.kind == "round" })
        var json = harness.records.map(\.json)
        guard case .object(var members) = json[index] else { Issue.record("round"); return }
        members["lastIn"] = out[0].json
        members["hash"] = nil
        members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
        json[index] = .object(members)
        // Later records' prev no longer match: only the round and the rest fail; the first reason names V2.
        let report = RoundVerifier.verify(records: json)
        #expect(report.checks.first { $0.problem != nil }?.problem == ReverseRules.lastIn)
    }
}
