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
}
