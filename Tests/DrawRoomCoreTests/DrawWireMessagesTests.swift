@testable import DrawEngine
import JSON
import Testing
@testable import DrawRoomCore

@Suite struct DrawWireMessagesTests {
    /// A draw with one commitment, driven like the room drives it, with a seeded generator.
    struct Rounds {
        var draw: Draw
        var random = SplitMix64(state: 17)
        var records: [DrawRecord] = []
        var now: Int64 = 1_764_455_400_000

        init() throws {
            draw = try Draw(config: .standard)
            records.append(try draw.prepareCommitment(seed: .random(using: &random), at: now))
        }

        mutating func round(contributions count: Int) throws {
            let given = (0..<count).map { _ in
                Contribution(hex: Hex.encode(Fairness.bigEndian(random.next()) + Fairness.bigEndian(random.next())))!
            }
            now += 1_000
            records += try draw.start(contributions: given, at: now)
            now += 1_000
            records += try draw.stop(at: now, nextSeed: .random(using: &random))
            try draw.reveal()
        }
    }

    @Test func resultMessageCarriesTheRecordAndDropsLongContributionLists() throws {
        var rounds = try Rounds()
        try rounds.round(contributions: 3)
        let small = try #require(rounds.draw.lastResult?.resultMessage())
        #expect(small["type"] == .string("result") && small["contributors"] == .int(3))
        #expect(small["contributions"]?.arrayValue?.count == 3)
        #expect(small["seed"] == rounds.draw.lastResult?.json["seed"])
        try rounds.round(contributions: 257)
        let large = try #require(rounds.draw.lastResult?.resultMessage())
        #expect(large["contributors"] == .int(257) && large["contributions"] == nil)
        #expect(rounds.draw.board[0].json["winners"] == rounds.records[2].json["winners"])
    }

    @Test func commitMessageNamesRoundCommitmentPoolHashWhatIsLeftAndThePlan() throws {
        let rounds = try Rounds()
        let commit = try #require(rounds.draw.commit)
        #expect(commit.message == .object([
            "type": .string("commit"), "round": .int(Int64(commit.round)),
            "commitment": .string(commit.commitment), "poolHash": .string(commit.poolHash),
            "remaining": .int(Int64(rounds.draw.remaining)), "exhausted": .bool(rounds.draw.isExhausted),
            "currentPrize": .null, "prizesDone": .bool(false),
            "plan": .object([
                "round": .int(Int64(commit.round)), "prize": .null, "prizeIndex": .null, "count": .int(1),
                "perStop": .int(1), "cut": .null, "prizeLeft": .null,
            ]),
        ]))
    }
}
