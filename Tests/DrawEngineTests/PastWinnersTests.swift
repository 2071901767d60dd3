import JSON
import Testing
@testable import DrawEngine

/// `excludeWinnersOf`: the winners of other draws, matched by id or by name, resolved and
/// locked into the pool at Start (docs/FAIRNESS.md §3, "Winners of other draws").
@Suite struct PastWinnersTests {
    static let staff: [Entrant] = (0..<12).map { Entrant(name: "Person \($0)", id: "E\($0)") }

    /// A lunch draw of the whole staff that drew `rounds` winners.
    static func lunch(rounds: Int, seed: UInt64 = 1) throws -> Harness {
        var harness = try Harness(DrawConfig(pool: .entries(staff)), seed: seed)
        for _ in 0..<rounds { try harness.round() }
        return harness
    }

    static func main(_ entrants: [Entrant] = staff, perStop: Int = 3) -> DrawConfig {
        DrawConfig(pool: .entries(entrants), perStop: .count(perStop), excludeWinnersOf: [PastDraw(code: "LUNCH", key: "secret")])
    }

    @Test func aPersonWhoWonTwiceStaysExcludedWhenOneWinIsVoided() throws {
        // Three entrants, two winners a round, repeats on: someone wins both rounds.
        let trio = Array(Self.staff.prefix(3))
        var lunch = try Harness(DrawConfig(pool: .entries(trio), perStop: .count(2), repeats: true), seed: 5)
        let first = try lunch.round()
        let second = try lunch.round()
        let twice = try #require(first.first { second.contains($0) })
        _ = try lunch.void(round: 1, winner: twice)
        let kept = lunch.draw.winnersForExclusion(code: "LUNCH")
        #expect(kept.names.contains(twice.description), "round 2's win still stands")
        let records = lunch.records.map(\.json)
        var main = try Harness(Self.main(trio + [Entrant(name: "Guest")], perStop: 1), seed: 2)
        _ = try main.round(pastWinners: [kept])
        // The linked export's check counts per win too: no failure, and no "matched by id" note.
        let findings = PastWinnersCheck.check(records: main.records.map(\.json), others: ["LUNCH": records])
        #expect(findings.count == 1 && findings[0].problem == nil && findings[0].notes.isEmpty, "\(findings)")
    }

    @Test func winnersOfTheLinkedDrawCannotWinAndTheLockSaysWhoWasLeftOut() throws {
        let lunch = try Self.lunch(rounds: 4)
        let lunchWinners = lunch.draw.winnersForExclusion(code: "LUNCH")
        #expect(lunchWinners.names.count == 4 && lunchWinners.ids.count == 4 && lunchWinners.head == lunch.draw.lastHash)
        var main = try Harness(Self.main(), seed: 9)
        #expect(main.draw.config.excludeWinnersOf == [PastDraw(code: "LUNCH")], "the key is dropped by validation")
        for _ in 0..<2 {
            let winners = try main.round(pastWinners: [lunchWinners])
            #expect(Set(winners.map(\.description)).isDisjoint(with: lunchWinners.names))
        }
        let rounds = main.records.compactMap { record -> RoundRecord? in if case .round(let r) = record.body { r } else { nil } }
        guard case .list(_, _, let removed, _, let past) = rounds[0].pool else { Issue.record("not a list"); return }
        let expected = Self.staff.indices.filter { lunchWinners.names.contains(Self.staff[$0].name) }.map(Int64.init)
        #expect(past == [PastExclusion(code: "LUNCH", head: lunch.draw.lastHash, records: lunch.draw.recordCount, removed: expected)])
        #expect(removed == expected && rounds[0].eligible == 8)
        #expect(rounds[0].pool.json["pastWinners"]?.arrayValue?.first?["records"] == .int(Int64(lunch.draw.recordCount)))
        let report = main.verify()
        #expect(report.passed, "\(report.checks.filter { !$0.ok }.map(\.line))")
    }

    @Test func idsMatchAcrossDifferentSpellingsAndNamesMatchWithoutIds() throws {
        let lunch = try Self.lunch(rounds: 1)
        let won = lunch.draw.winnersForExclusion(code: "LUNCH")
        let winnerID = try #require(won.ids.first)
        // The main list spells the winner differently but carries the same id; a second winner
        // name appears without id and is matched by name.
        let entrants = [Entrant(name: "Someone Else", id: winnerID), Entrant(name: "Person 99", id: "E99"),
                        Entrant(name: "Person 98"), Entrant(name: "Person 97", id: "E97")]
        let other = PastWinners(code: "LUNCH", head: won.head, records: won.records, names: ["Person 98"], ids: won.ids)
        var main = try Harness(Self.main(entrants, perStop: 2), seed: 3)
        let winners = try main.round(pastWinners: [other])
        #expect(Set(winners.map(\.description)) == ["Person 99", "Person 97"])
        #expect(main.verify().passed)
    }

    @Test func theExclusionIsResolvedAtStartNotAtConfigure() throws {
        var lunch = try Self.lunch(rounds: 1)
        var main = try Harness(Self.main(perStop: 1), seed: 5)
        try main.draw.configure(Self.main(perStop: 1), pastWinners: [lunch.draw.winnersForExclusion(code: "LUNCH")])
        #expect(main.draw.remaining == 11, "the published lock already leaves the first lunch winner out")
        let published = main.draw.commit?.poolHash
        try lunch.round()
        try lunch.round()
        let now = lunch.draw.winnersForExclusion(code: "LUNCH")
        main.records += try main.draw.start(contributions: [], at: main.tick(), pastWinners: [now])
        #expect(main.draw.commit?.poolHash != published && main.draw.remaining == 9, "Start locks the winners as they stand")
        let records = try main.draw.stop(at: main.tick(), nextSeed: .random(using: &main.random))
        main.records += records
        guard case .round(let round)? = records.first(where: { $0.kind == "round" })?.body else { Issue.record("no round"); return }
        #expect(!now.names.contains(round.winners[0].description) && round.poolHash == main.draw.commit.map { _ in round.poolHash })
        #expect(main.verify().passed)
    }

    @Test func aVoidedWinnerOfTheLinkedDrawIsNotExcluded() throws {
        var lunch = try Self.lunch(rounds: 1)
        guard case .round(let first)? = lunch.records.last(where: { $0.kind == "round" })?.body else { Issue.record("no round"); return }
        try lunch.void(round: first.round, winner: first.winners[0])
        let won = lunch.draw.winnersForExclusion(code: "LUNCH")
        #expect(!won.names.contains(first.winners[0].description) && won.names.count == 1)
    }

    @Test(arguments: [
        DrawConfig(pool: .range(from: 1, to: 9), excludeWinnersOf: [PastDraw(code: "LUNCH")]),
        DrawConfig(pool: .list(["Ann", "Bob"]), excludeWinnersOf: [PastDraw(code: "LUNCH"), PastDraw(code: " LUNCH ")]),
        DrawConfig(pool: .list(["Ann", "Bob"]), excludeWinnersOf: [PastDraw(code: "")]),
        DrawConfig(pool: .list(["Ann", "Bob"]), excludeWinnersOf: [PastDraw(code: "LU NCH")]),
        DrawConfig(pool: .list(["Ann", "Bob"]), excludeWinnersOf: [PastDraw(code: String(repeating: "A", count: 33))]),
        DrawConfig(pool: .list(["Ann", "Bob"]), excludeWinnersOf: (0...20).map { PastDraw(code: "D\($0)") }),
    ])
    func badLinksAreRefused(config: DrawConfig) throws {
        var draw = try Draw()
        let before = Snapshot(draw)
        #expect(throws: DrawError.badPastDraw) { try draw.configure(config) }
        #expect(Snapshot(draw) == before)
    }

    @Test func aTamperedExclusionFailsTheRecheck() throws {
        let lunch = try Self.lunch(rounds: 3)
        var main = try Harness(Self.main(), seed: 2)
        try main.round(pastWinners: [lunch.draw.winnersForExclusion(code: "LUNCH")])
        // Claim an entrant was left out for a lunch win that is not in `removed`: the pool no longer
        // hashes to poolHash, and even with a matching hash the subset rule fails.
        var records = main.records.map(\.json)
        let index = try #require(records.firstIndex { $0["kind"]?.stringValue == "round" })
        guard case .object(var round) = records[index], case .object(var pool) = round["pool"]!,
              case .array(var past) = pool["pastWinners"]!, case .object(var first) = past[0] else { Issue.record("shape"); return }
        let removed = pool["removed"]!.arrayValue!.compactMap(\.intValue)
        let outsider = try #require((0..<12).first { !removed.contains(Int64($0)) })
        first["removed"] = .array((first["removed"]!.arrayValue! + [.int(Int64(outsider))]).sorted { $0.intValue! < $1.intValue! })
        past[0] = .object(first)
        pool["pastWinners"] = .array(past)
        round["pool"] = .object(pool)
        round["poolHash"] = .string(Hashing.sha256Hex(JSONValue.object(pool).canonicalBytes))
        round["hash"] = nil
        round["hash"] = .string(Hashing.sha256Hex(JSONValue.object(round).canonicalBytes))
        records[index] = .object(round)
        let report = RoundVerifier.verify(records: records)
        #expect(report.checks[index].problem == "pastWinners")
    }
}

/// `tombola verify MAIN.json --past LUNCH.json`: the exclusion checked against the linked draw's own export.
@Suite struct PastWinnersCheckTests {
    @Test func theLinkedExportConfirmsTheExclusionAndCatchesAWinnerLeftIn() throws {
        let lunch = try PastWinnersTests.lunch(rounds: 2)
        let won = lunch.draw.winnersForExclusion(code: "LUNCH")
        let lunchRecords = lunch.records.map(\.json)

        var main = try Harness(PastWinnersTests.main(perStop: 2), seed: 11)
        try main.round(pastWinners: [won])
        let ok = PastWinnersCheck.check(records: main.records.map(\.json), others: ["LUNCH": lunchRecords])
        #expect(ok.count == 1 && ok[0].problem == nil && ok[0].notes.isEmpty)

        // A server that "forgot" one lunch winner: the check names it.
        let partial = PastWinners(code: "LUNCH", head: won.head, records: won.records, names: Set(won.names.dropFirst()), ids: [])
        var sloppy = try Harness(PastWinnersTests.main(perStop: 1), seed: 12)
        try sloppy.round(pastWinners: [partial])
        let caught = PastWinnersCheck.check(records: sloppy.records.map(\.json), others: ["LUNCH": lunchRecords])
        #expect(caught.first?.problem?.contains("was not left out") == true)

        // Another chain than the one locked: the head does not match.
        let other = try PastWinnersTests.lunch(rounds: 2, seed: 99).records.map(\.json)
        #expect(PastWinnersCheck.check(records: main.records.map(\.json), others: ["LUNCH": other]).first?.problem?.contains("is not") == true)
    }
}
