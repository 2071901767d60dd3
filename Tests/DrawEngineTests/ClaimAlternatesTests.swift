import JSON
import Testing
@testable import DrawEngine

/// Claims (docs/FAIRNESS.md §15): a round fixes its alternates with the same derivation as its
/// winners, passes go to the next one in order, and every verifier refuses a pass that skips one.
@Suite struct ClaimAlternatesTests {
    static let ids = (0..<12).map { "ID\(String($0, radix: 10))XXXXX".prefix(8).description }

    static func harness(perStop: Int = 1, alternates: Int = 3, repeats: Bool = false) throws -> Harness {
        try Harness(DrawConfig(pool: .checkin(ids), perStop: .count(perStop), repeats: repeats,
                               claim: ClaimSetting(seconds: 30, alternates: alternates)), seed: 26)
    }

    static func round(_ h: Harness) -> RoundRecord? {
        for record in h.records.reversed() { if case .round(let r) = record.body { return r } }
        return nil
    }

    @Test func alternatesContinueTheSamplingAndLeaveTheWinnersAsTheyWere() throws {
        var with = try Self.harness(perStop: 2)
        var without = try Harness(DrawConfig(pool: .checkin(Self.ids), perStop: .count(5)), seed: 26)
        let winners = try with.round()
        let five = try without.round()
        let r = try #require(Self.round(with))
        #expect(winners.count == 2)
        #expect(r.alternates?.count == 3)
        #expect(winners + (r.alternates ?? []) == five)
        #expect(with.records.last { $0.kind == "round" }?.json["alternates"]?.arrayValue?.count == 3)
        #expect(with.verify().passed)
        // A draw without claims writes no `alternates` key (its records hash as before).
        #expect(without.records.last { $0.kind == "round" }?.json["alternates"] == nil)
    }

    @Test func unclaimedWinsPassInOrderThenTheLastPassLeavesThePrizeUnawarded() throws {
        var h = try Self.harness(alternates: 2)
        let winner = try h.round()[0]
        let alternates = try #require(Self.round(h)?.alternates)
        var current = winner
        for expected in alternates + [nil] as [DrawValue?] {
            let record = try h.draw.pass(round: 1, winner: current, reason: "not claimed in 30 s", at: h.tick())
            h.records.append(record)
            #expect(record.body == .pass(round: 1, winner: current, alternate: expected, reason: "not claimed in 30 s"))
            if let expected { current = expected }
        }
        #expect(h.draw.board[0].winners.isEmpty)
        #expect(h.draw.board[0].voided.map(\.winner) == [winner] + alternates)
        #expect(h.draw.board[0].voided.allSatisfy { $0.reason == "not claimed in 30 s" })
        let report = h.verify()
        #expect(report.passed, "\(report.checks.filter { !$0.ok }.map(\.line))")
        // Passed winners are out of the next round's pool (rule 2) and a restore rebuilds the board.
        let restored = try Draw(config: h.draw.config, restoring: h.records)
        #expect(restored.board == h.draw.board)
        #expect(restored.remaining == h.draw.remaining)
        #expect(h.draw.remaining == UInt64(Self.ids.count - 3))
        #expect(throws: DrawError.unknownWinner) { _ = try h.draw.pass(round: 1, winner: winner, reason: "x", at: 1) }
    }

    @Test func aForgedPassToANonNextAlternateIsRefusedNamingTheRule() throws {
        var h = try Self.harness()
        let winner = try h.round()[0]
        let alternates = try #require(Self.round(h)?.alternates)
        // The server would pass to alternates[0]; a forger writes alternates[2] and re-chains.
        var forged = Array(h.records)
        let body = RecordBody.pass(round: 1, winner: winner, alternate: alternates[2], reason: "not claimed in 30 s")
        forged.append(DrawRecord(index: forged.count, at: 1, prev: forged.last!.hash, body: body))
        let report = RoundVerifier.verify(records: forged.map(\.json))
        #expect(!report.passed)
        #expect(report.checks.last?.problem == "pass is not to the next alternate (rule C3)")
        // A restore refuses it too.
        #expect(throws: DrawError.corruptHistory) { _ = try Draw(config: h.draw.config, restoring: forged) }
        // A pass of someone who is not a current winner fails C2, and a restore refuses it.
        var stranger = Array(h.records)
        let nobody = RecordBody.pass(round: 1, winner: alternates[1], alternate: nil, reason: "not claimed in 30 s")
        stranger.append(DrawRecord(index: stranger.count, at: 1, prev: stranger.last!.hash, body: nobody))
        #expect(RoundVerifier.verify(records: stranger.map(\.json)).checks.last?.problem
                == "passed winner not a current winner of the latest round (rule C2)")
        #expect(throws: DrawError.corruptHistory) { _ = try Draw(config: h.draw.config, restoring: stranger) }
        // Tampered alternates in the round record fail C1.
        var json = try #require(h.records.last { $0.kind == "round" }?.json.objectValue)
        json["alternates"] = .array(alternates.reversed().map(\.json))
        let index = h.records.lastIndex { $0.kind == "round" }!
        var records = h.records.map(\.json)
        records[index] = .object(json)
        let tampered = RoundVerifier.verify(records: records)
        #expect(tampered.checks[index].problem?.hasPrefix("record hash") == true)
    }

    @Test func claimSettingsAreBoundedAndForCheckinPoolsOnly() throws {
        #expect(throws: DrawError.badClaim) { _ = try Draw(config: DrawConfig(pool: .checkin(Self.ids), claim: ClaimSetting(seconds: 9))) }
        #expect(throws: DrawError.badClaim) { _ = try Draw(config: DrawConfig(pool: .checkin(Self.ids), claim: ClaimSetting(seconds: 601))) }
        #expect(throws: DrawError.badClaim) { _ = try Draw(config: DrawConfig(pool: .checkin(Self.ids), claim: ClaimSetting(alternates: 0))) }
        #expect(throws: DrawError.badClaim) { _ = try Draw(config: DrawConfig(pool: .checkin(Self.ids), claim: ClaimSetting(alternates: DrawLimits.maxWaitlist + 1))) }
        #expect(throws: DrawError.badClaim) { _ = try Draw(config: DrawConfig(pool: .list(["a", "b"]), claim: ClaimSetting())) }
        let config = DrawConfig(pool: .checkin(Self.ids), claim: ClaimSetting(seconds: 45, alternates: 2))
        #expect(try DrawConfig(json: config.json) == config)
        let defaults = try DrawConfig(json: try JSONValue.parse(#"{"pool":{"kind":"checkin"},"claim":{}}"#))
        #expect(defaults.claim == ClaimSetting(seconds: 30, alternates: 3))
        #expect(try DrawConfig(json: try JSONValue.parse(#"{"claim":false}"#)).claim == nil)
    }

    @Test func fewerAlternatesWhenThePoolRunsOut() throws {
        var h = try Harness(DrawConfig(pool: .checkin(Array(Self.ids.prefix(3))), perStop: .count(2),
                                       claim: ClaimSetting(alternates: 5)), seed: 7)
        try h.round()
        #expect(Self.round(h)?.alternates?.count == 1)
        #expect(h.verify().passed)
    }
}
