@testable import DrawEngine
import Testing

/// A cluster's new owner rebuilds the draw from the log and takes up the committed seed
/// (`resumeCommitment`): the round it draws is the one the pages saw committed, with the
/// winners the old owner would have drawn from the same contributions.
@Suite struct ResumeCommitmentTests {
    @Test func aRestoredDrawWithTheCommittedSeedDrawsTheSameWinners() throws {
        var harness = try Harness(seed: 7)
        try harness.round()
        try harness.round()
        let pending = try #require(harness.draw.committedSeed)
        let contributions = harness.contributions(3)

        var original = harness.draw
        try original.start(contributions: contributions, audience: "42", at: harness.now + 1)
        let drawn = try original.stop(at: harness.now + 2, nextSeed: Seed(bytes: Array(repeating: 1, count: 32))!)

        var restored = try Draw(config: .standard, restoring: harness.records)
        #expect(restored.commit == nil)
        try restored.resumeCommitment(pending)
        #expect(restored.commit?.commitment == harness.draw.commit?.commitment)
        try restored.start(contributions: contributions, audience: "42", at: harness.now + 1)
        let redrawn = try restored.stop(at: harness.now + 2, nextSeed: Seed(bytes: Array(repeating: 1, count: 32))!)
        #expect(redrawn.map(\.hash) == drawn.map(\.hash))
        #expect(redrawn.first { $0.kind == "round" }?.json["winners"] == drawn.first { $0.kind == "round" }?.json["winners"])
    }

    @Test func refusesAnotherSeedAUsedCommitmentOrASecondResume() throws {
        var harness = try Harness(seed: 11)
        let first = try #require(harness.draw.committedSeed)
        try harness.round()
        let pending = try #require(harness.draw.committedSeed)
        var restored = try Draw(config: .standard, restoring: harness.records)
        #expect(throws: DrawError.notCommitted) { try restored.resumeCommitment(first) }  // already drawn with
        #expect(throws: DrawError.notCommitted) { try restored.resumeCommitment(Seed(bytes: Array(repeating: 9, count: 32))!) }
        try restored.resumeCommitment(pending)
        #expect(throws: DrawError.notCommitted) { try restored.resumeCommitment(pending) }

    }

    @Test func afterAClearTheCommittedSeedIsStillTheOneToResume() throws {
        var harness = try Harness(seed: 13)
        try harness.round()
        let pending = try #require(harness.draw.committedSeed)
        harness.records.append(try harness.draw.clear(at: harness.tick()))
        var restored = try Draw(config: .standard, restoring: harness.records)
        try restored.resumeCommitment(pending)
        #expect(restored.commit?.commitment == pending.commitment)
    }

    @Test func aStopNobodyRevealedComesBackStoppingOnItsRoundWithItsPlan() throws {
        var harness = try Harness(seed: 17)
        try harness.round()
        var original = harness.draw
        let locked = try original.start(contributions: harness.contributions(2), at: harness.tick())
        let plan = original.armed
        let stored = locked + (try original.stop(at: harness.tick(), nextSeed: Seed(bytes: Array(repeating: 3, count: 32))!))
        var restored = try Draw(config: .standard, restoring: harness.records + stored)
        #expect(restored.phase == .revealed)
        try restored.resumeStopping()
        #expect(restored.phase == .stopping)
        #expect(restored.armed == plan)
        #expect(restored.lastResult?.hash == original.lastResult?.hash)
        try restored.reveal()
        #expect(restored.armed == original.nextPlan)
    }

    /// A cluster's new owner finds the chain ending with the lock a Start stored: with that Start's
    /// frozen inputs it rolls on (nothing stored) and its Stop draws what the old owner would have.
    @Test func aRollingRoundResumesOnTheLockItsStartStored() throws {
        var harness = try Harness(seed: 29)
        try harness.round()
        let pending = try #require(harness.draw.committedSeed)
        let contributions = harness.contributions(3)
        var original = harness.draw
        let locked = try original.start(contributions: contributions, audience: "7", at: harness.tick())
        let next = Seed(bytes: Array(repeating: 4, count: 32))!
        let stopAt = harness.tick()
        let drawn = try original.stop(at: stopAt, nextSeed: next)

        var restored = try Draw(config: .standard, restoring: harness.records + locked)
        try restored.resumeCommitment(pending)
        let before = restored.recordCount
        try restored.resumeRolling(contributions: contributions, audience: "7")
        #expect(restored.phase == .rolling && restored.recordCount == before)
        #expect(try restored.stop(at: stopAt, nextSeed: next).map(\.hash) == drawn.map(\.hash))

        // Without that lock at the end of the chain there is nothing to resume.
        var unlocked = try Draw(config: .standard, restoring: harness.records)
        try unlocked.resumeCommitment(pending)
        #expect(throws: DrawError.wrongPhase) { try unlocked.resumeRolling(contributions: contributions, audience: "7") }
    }

    @Test func onlyAStopAtTheEndOfTheLogCanBeResumed() throws {
        var harness = try Harness(seed: 19)
        var fresh = try Draw(config: .standard, restoring: harness.records)
        #expect(throws: DrawError.wrongPhase) { try fresh.resumeStopping() }  // no round
        try harness.round()
        harness.records.append(try harness.draw.clear(at: harness.tick()))
        var cleared = try Draw(config: .standard, restoring: harness.records)
        #expect(throws: DrawError.wrongPhase) { try cleared.resumeStopping() }  // a clear after it
        var other = try Harness(seed: 23)
        let drawn = try other.round()
        try other.void(round: 1, winner: drawn[0])
        var voided = try Draw(config: .standard, restoring: other.records)
        #expect(throws: DrawError.wrongPhase) { try voided.resumeStopping() }  // a void's replacement shows at once
        var twice = try Draw(config: .standard, restoring: Array(harness.records.dropLast()))
        try twice.resumeStopping()
        #expect(throws: DrawError.wrongPhase) { try twice.resumeStopping() }
    }
}
