import Testing
@testable import DrawEngine

@Suite struct DrawFlowTests {
    @Test func roundGoesThroughRollingStoppingRevealedAndPublishesTheNextCommitment() throws {
        var draw = try Draw()
        #expect(throws: DrawError.notCommitted) { try draw.start(contributions: [], at: 0) }
        var random = SplitMix64(state: 1)
        let first = Seed.random(using: &random)
        let commit = try draw.prepareCommitment(seed: first, at: 1)
        #expect(commit.body == .commit(commitment: first.commitment, reason: .open))
        #expect(draw.commit?.round == 1 && draw.commit?.commitment == first.commitment)
        #expect(draw.commit?.poolHash == PoolSpec.range(from: 1, to: 500, removed: []).poolHash)
        #expect(draw.commit?.plan == RoundPlan(round: 1, prize: nil, prizeIndex: nil, count: 1, perStop: .count(1), cut: nil, prizeLeft: nil))
        #expect(throws: DrawError.wrongPhase) { try draw.reveal() }
        #expect(throws: DrawError.wrongPhase) { _ = try draw.stop(at: 2, nextSeed: first) }

        let locked = try draw.start(contributions: [], at: 2)
        #expect(locked.map(\.kind) == ["lock"], "Start stores the round's lock before anything rolls")
        #expect(draw.phase == .rolling)
        #expect(throws: DrawError.wrongPhase) { try draw.start(contributions: [], at: 3) }
        #expect(throws: DrawError.wrongPhase) { try draw.configure(.standard) }
        #expect(throws: DrawError.wrongPhase) { _ = try draw.clear(at: 3) }
        let second = Seed.random(using: &random)
        let records = try draw.stop(at: 4, nextSeed: second)
        #expect(draw.phase == .stopping)
        #expect(records.map(\.kind) == ["round", "commit"])
        #expect(records[0].prev == locked[0].hash)
        guard case .round(let round) = records[0].body else { Issue.record("no round"); return }
        #expect(round.seed == first.hex && round.commitment == first.commitment && round.round == 1)
        #expect(round.winners.count == 1)
        #expect(draw.commit?.commitment == second.commitment)
        #expect(draw.commit?.round == 2)
        #expect(draw.remaining == 499)
        try draw.reveal()
        #expect(draw.phase == .revealed)
        #expect(draw.board.map(\.winners) == [round.winners])
    }

    @Test func thousandRoundsNeverRepeatAWinnerThenStartReportsExhaustion() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 1_000)), seed: 1_000)
        var seen = Set<DrawValue>()
        for round in 1...1_000 {
            let winners = try harness.round(contributions: round % 3)
            #expect(winners.count == 1)
            #expect(seen.insert(winners[0]).inserted, "repeat \(winners[0]) in round \(round), seed \(harness.seed)")
        }
        #expect(seen.count == 1_000)
        #expect(harness.draw.isExhausted)
        let before = Snapshot(harness.draw)
        #expect(throws: DrawError.poolExhausted) { try harness.draw.start(contributions: [], at: 0) }
        #expect(Snapshot(harness.draw) == before)
        #expect(harness.verify().passed)
    }

    @Test func twoNumberPoolDrawsBothNumbersThenRunsOut() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 2)), seed: 2)
        let winners = try harness.round() + harness.round()
        #expect(Set(winners) == [.number(1), .number(2)])
        #expect(throws: DrawError.poolExhausted) { try harness.round() }
    }

    @Test func perStopAllDrawsEveryRemainingNumberInOneRound() throws {
        var harness = try Harness(DrawConfig(exclude: [.number(250)], perStop: .all), seed: 3)
        let winners = try harness.round()
        #expect(winners.count == 499)
        #expect(Set(winners) == Set((1...500).filter { $0 != 250 }.map { DrawValue.number(Int64($0)) }))
        #expect(harness.verify().passed)
    }

    @Test func rangeOfTenToTheTwelveDrawsWithoutMaterialisingIt() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 1_000_000_000_000), perStop: .count(1_000)), seed: 12)
        #expect(harness.draw.remaining == 1_000_000_000_000)
        let winners = try harness.round()
        #expect(Set(winners).count == 1_000)
        #expect(winners.allSatisfy { if case .number(let n) = $0 { (1...1_000_000_000_000).contains(n) } else { false } })
        try harness.round()
        #expect(harness.draw.remaining == 1_000_000_000_000 - 2_000)
        #expect(harness.verify().passed)
        #expect(throws: DrawError.badPerStop) {
            try harness.draw.configure(DrawConfig(pool: .range(from: 1, to: 1_000_000_000_000), perStop: .all))
            try harness.draw.start(contributions: [], at: 0)
        }
    }

    @Test func hundredThousandNamesDrawAndVerify() throws {
        let names = (1...100_000).map { "Entrant \($0)" } + ["Entrant 5", "Entrant 99999"]
        var harness = try Harness(DrawConfig(pool: .list(names), exclude: [.name("Entrant 1")], perStop: .count(10)), seed: 100)
        #expect(harness.draw.duplicates == ["Entrant 5", "Entrant 99999"])
        #expect(harness.draw.remaining == 99_999)
        let winners = try harness.round()
        #expect(Set(winners).count == 10 && !winners.contains(.name("Entrant 1")))
        try harness.round()
        #expect(harness.records.filter { $0.kind == "entrants" }.count == 1)
        #expect(harness.verify().passed)
    }

    @Test func prizesAreDrawnInOrderAndEachTierStopsAtItsCount() throws {
        let prizes = [Prize(name: "3rd prize", count: 3), Prize(name: "2nd prize", count: 2), Prize(name: "1st prize", count: 1)]
        var harness = try Harness(DrawConfig(perStop: .count(2), prizes: prizes), seed: 4)
        var sizes = [Int](), labels = [String?]()
        for _ in 0..<4 {
            sizes.append(try harness.round().count)
            labels.append(harness.draw.board.last?.prize)
        }
        #expect(sizes == [2, 1, 2, 1])
        #expect(labels == ["3rd prize", "3rd prize", "2nd prize", "1st prize"])
        #expect(harness.draw.prizesDone)
        #expect(throws: DrawError.prizesDone) { try harness.round() }
        #expect(harness.verify().passed)
    }

    @Test func theArmedPlanNamesTheTierTheRoundWillDrawOnceTheLastOneFills() throws {
        // The rehearsal of issue 19: 1, 3 and 6 winners fill "3rd prize" ×10; round 4 is "2nd prize".
        let prizes = [Prize(name: "3rd prize", count: 10), Prize(name: "2nd prize", count: 3), Prize(name: "Grand prize", count: 1)]
        var harness = try Harness(DrawConfig(perStop: .count(1), prizes: prizes), seed: 19)
        try harness.round()
        try harness.draw.configure(DrawConfig(perStop: .count(3), prizes: prizes))
        try harness.round()
        try harness.draw.configure(DrawConfig(perStop: .count(10), prizes: prizes))
        #expect(harness.draw.commit?.plan == RoundPlan(round: 3, prize: "3rd prize", prizeIndex: 0, count: 6, perStop: .count(10),
                                                       cut: .prize, prizeLeft: 6))
        #expect(try harness.round().count == 6)
        let plan = try #require(harness.draw.commit?.plan)
        #expect(plan == RoundPlan(round: 4, prize: "2nd prize", prizeIndex: 1, count: 3, perStop: .count(10), cut: .prize, prizeLeft: 3))
        #expect(harness.draw.commit?.remaining == 490)
        try harness.draw.start(contributions: [], at: harness.tick())
        #expect(harness.draw.armed == plan)
        _ = try harness.draw.stop(at: harness.tick(), nextSeed: .random(using: &harness.random))
        #expect(harness.draw.armed == plan, "the round being stopped stays the one on show")
        #expect(harness.draw.board.last?.prize == "2nd prize" && harness.draw.board.last?.winners.count == 3)
        try harness.draw.reveal()
        #expect(harness.draw.armed.round == 5 && harness.draw.armed.prize == "Grand prize" && harness.draw.armed.count == 1)
    }

    @Test func aPlanCutToThePoolSaysSoAndAPlanWithNothingLeftDrawsNone() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 4), perStop: .count(3)), seed: 20)
        try harness.round()
        #expect(harness.draw.nextPlan.count == 1 && harness.draw.nextPlan.cut == .pool)
        try harness.round()
        #expect(harness.draw.nextPlan.count == 0 && harness.draw.nextPlan.cut == nil && harness.draw.isExhausted)
        try harness.draw.configure(DrawConfig(pool: .range(from: 1, to: 400), perStop: .all))
        #expect(harness.draw.nextPlan.count == 396 && harness.draw.nextPlan.cut == nil)
    }

    @Test func aNewListOfTiersStartsFreshInsteadOfInheritingCountsByPosition() throws {
        // Issue 19: "Tier A" ×2 and "Tier B" ×2 drawn, then a single tier "P" ×6 must draw 6.
        let old = [Prize(name: "Tier A", count: 2), Prize(name: "Tier B", count: 2)]
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 100), perStop: .count(2), prizes: old), seed: 21)
        try harness.round()
        try harness.round()
        #expect(harness.draw.prizesDone)
        try harness.draw.configure(DrawConfig(pool: .range(from: 1, to: 100), perStop: .count(6), prizes: [Prize(name: "P", count: 6)]))
        #expect(harness.draw.currentPrize == 0 && harness.draw.awarded(0) == 0)
        #expect(harness.draw.nextPlan.count == 6 && harness.draw.nextPlan.cut == nil)
        #expect(try harness.round().count == 6)
        // The same tier with a larger count keeps what it already drew.
        try harness.draw.configure(DrawConfig(pool: .range(from: 1, to: 100), perStop: .count(6), prizes: [Prize(name: "P", count: 8)]))
        #expect(harness.draw.awarded(0) == 6 && harness.draw.nextPlan.count == 2 && harness.draw.nextPlan.cut == .prize)
        #expect(harness.verify().passed)
    }

    @Test func hostPickedPrizeIsDrawnNext() throws {
        let prizes = [Prize(name: "3rd", count: 2), Prize(name: "1st", count: 1)]
        var harness = try Harness(DrawConfig(prizes: prizes, prize: 1), seed: 6)
        try harness.round()
        #expect(harness.draw.board.last?.prize == "1st")
        #expect(harness.draw.prizesDone)
        try harness.draw.configure(DrawConfig(prizes: prizes, prize: 0))
        #expect(harness.draw.currentPrize == 0)
        try harness.round()
        #expect(harness.draw.board.last?.prize == "3rd")
    }

    @Test func repeatsLetANumberWinAgainButNeverTwiceInOneRound() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 3), perStop: .count(3), repeats: true), seed: 8)
        for _ in 0..<5 {
            #expect(Set(try harness.round()).count == 3)
        }
        #expect(harness.draw.remaining == 3)
        #expect(harness.verify().passed)
    }

    @Test func voidDrawsAReplacementThatIsNeitherVoidedNorARepeat() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 20), perStop: .count(3)), seed: 9)
        let first = try harness.round()
        try harness.round()
        let earlier = Set(harness.draw.board.flatMap(\.winners))
        let replacement = try harness.void(round: 1, winner: first[1])
        #expect(replacement.count == 1 && !earlier.contains(replacement[0]))
        #expect(harness.draw.board[0].winners == [first[0], first[2], replacement[0]])
        #expect(harness.draw.board[0].voided == [VoidedWinner(winner: first[1], reason: "no-show")])
        #expect(harness.records.suffix(4).map(\.kind) == ["void", "lock", "round", "commit"])

        let before = Snapshot(harness.draw)
        var random = SplitMix64(state: 99)
        let next = Seed.random(using: &random)
        #expect(throws: DrawError.alreadyVoided) { _ = try harness.draw.void(round: 1, winner: first[1], reason: "again", nextSeed: next, at: 0) }
        #expect(throws: DrawError.unknownWinner) { _ = try harness.draw.void(round: 1, winner: .number(999), reason: "x", nextSeed: next, at: 0) }
        #expect(throws: DrawError.unknownRound) { _ = try harness.draw.void(round: 7, winner: first[0], reason: "x", nextSeed: next, at: 0) }
        #expect(throws: DrawError.badReason) { _ = try harness.draw.void(round: 1, winner: first[0], reason: " ", nextSeed: next, at: 0) }
        #expect(Snapshot(harness.draw) == before)

        try harness.void(round: 1, winner: replacement[0], reason: "left early")
        try harness.round()
        #expect(harness.verify().passed)
    }

    @Test func voidWithRepeatsOnNeverRedrawsTheRoundsOtherWinners() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 3), perStop: .count(2), repeats: true), seed: 10)
        let winners = try harness.round()
        let third = Set((1...3).map { DrawValue.number(Int64($0)) }).subtracting(winners).first!
        #expect(try harness.void(round: 1, winner: winners[0]) == [third])
        #expect(throws: DrawError.poolExhausted) { try harness.void(round: 1, winner: winners[1]) }
        #expect(harness.verify().passed)
    }

    @Test func clearHidesTheBoardAndLetsEarlierWinnersWinAgain() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 2)), seed: 13)
        try harness.round()
        try harness.round()
        #expect(harness.draw.isExhausted)
        harness.records.append(try harness.draw.clear(at: harness.tick()))
        #expect(harness.draw.phase == .idle && harness.draw.board.isEmpty && harness.draw.remaining == 2)
        #expect(harness.draw.nextRound == 3)
        try harness.round()
        #expect(harness.verify().passed)
    }

    @Test func startFreezesContributionsSortedAndDeduplicatedAndChecksTheAudienceNumber() throws {
        var harness = try Harness(seed: 14)
        let given = harness.contributions(3)
        let before = Snapshot(harness.draw)
        #expect(throws: DrawError.badAudience) { try harness.draw.start(contributions: given, audience: "12a", at: 0) }
        #expect(throws: DrawError.badAudience) { try harness.draw.start(contributions: given, audience: String(repeating: "1", count: 33), at: 0) }
        #expect(Snapshot(harness.draw) == before)
        try harness.draw.start(contributions: given + given.reversed(), audience: " 0042 ", at: 0)
        var random = SplitMix64(state: 1)
        let records = try harness.draw.stop(at: 1, nextSeed: .random(using: &random))
        guard case .round(let round) = records[0].body else { Issue.record("no round"); return }
        #expect(round.contributions == given.sorted().map(\.hex))
        #expect(round.audience == "0042")
        #expect(round.entropy == Hex.encode(Fairness.entropyDigest(contributions: given.sorted(), audience: "0042")))
    }

    @Test func stopMomentDoesNotChangeTheWinners() throws {
        var early = try Harness(seed: 15), late = try Harness(seed: 15)
        let given = early.contributions(4)
        _ = late.contributions(4)
        try early.draw.start(contributions: given, at: 100)
        try late.draw.start(contributions: given, at: 100)
        var a = SplitMix64(state: 3), b = SplitMix64(state: 4)
        let one = try early.draw.stop(at: 101, nextSeed: .random(using: &a))
        let two = try late.draw.stop(at: 987_654, nextSeed: .random(using: &b))
        guard case .round(let x) = one[0].body, case .round(let y) = two[0].body else { Issue.record("no round"); return }
        #expect(x.winners == y.winners)
    }

    @Test func rollingValuesStayInsideThePool() throws {
        let draw = try Draw(config: DrawConfig(pool: .range(from: 5, to: 9)))
        var random = SplitMix64(state: 16)
        for _ in 0..<200 {
            guard case .number(let n) = draw.rollingValue(using: &random) else { Issue.record("not a number"); return }
            #expect((5...9).contains(n))
        }
    }
}
