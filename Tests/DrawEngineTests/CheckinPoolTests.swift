import JSON
import Testing
@testable import DrawEngine

/// A checked-in pool (#14) is locked and drawn exactly as a list of its public ids, so every
/// verifier that checks lists checks it, and the chain holds no personal field.
@Suite struct CheckinPoolTests {
    static let ids = ["K7QX2M9P", "A3BC4DEF", "ZZ9YX8WV", "M2N3P4Q5", "R6S7T8U9"]

    @Test func locksAndDrawsExactlyAsAListOfTheSameIDs() throws {
        var random = SplitMix64(state: 14)
        let seed = Seed.random(using: &random)
        let next = Seed.random(using: &random)
        func run(_ pool: PoolConfig) throws -> (String?, [DrawRecord]) {
            var draw = try Draw(config: DrawConfig(pool: pool))
            _ = try draw.prepareCommitment(seed: seed, at: 1)
            let hash = draw.commit?.poolHash
            let locked = try draw.start(contributions: [], at: 2)
            return (hash, locked + (try draw.stop(at: 3, nextSeed: next)))
        }
        let (checkinHash, checkinRecords) = try run(.checkin(Self.ids))
        let (listHash, listRecords) = try run(.list(Self.ids))
        #expect(checkinHash == listHash)
        #expect(checkinRecords.map(\.canonicalJSON) == listRecords.map(\.canonicalJSON))
        #expect(checkinRecords.first?.kind == "entrants")
        guard case .round(let round) = checkinRecords[2].body, case .name(let winner)? = round.winners.first else {
            Issue.record("no round")
            return
        }
        #expect(Self.ids.contains(winner))
    }

    @Test func anEmptyPoolIsAcceptedAndStartSaysItIsExhausted() throws {
        var draw = try Draw(config: DrawConfig(pool: .checkin([])))
        var random = SplitMix64(state: 2)
        _ = try draw.prepareCommitment(seed: .random(using: &random), at: 1)
        #expect(draw.remaining == 0)
        #expect(throws: DrawError.poolExhausted) { try draw.start(contributions: [], at: 2) }
        try draw.configure(DrawConfig(pool: .checkin(["ONLY1ONE"])))
        #expect(draw.remaining == 1)
        try draw.start(contributions: [], at: 3)
    }

    @Test(arguments: [
        (["AAAA", "AAAA"], DrawError.duplicateEntrant),
        ([" AAAA"], .badEntrant),
        ([""], .badEntrant),
        (["A\u{7}B"], .badEntrant),
        ([String(repeating: "x", count: 201)], .badEntrant),
    ])
    func badIDsAreRefused(ids: [String], error: DrawError) {
        #expect(throws: error) { _ = try Draw(config: DrawConfig(pool: .checkin(ids))) }
    }

    @Test func theSettingsJSONRoundTripsAndAHostCannotSmuggleInAnythingButIDs() throws {
        let config = DrawConfig(pool: .checkin(Self.ids))
        #expect(try DrawConfig(json: config.json) == config)
        let bare = try DrawConfig(json: try JSONValue.parse(#"{"pool":{"kind":"checkin"}}"#))
        #expect(bare.pool == .checkin([]))
        #expect(throws: DrawConfigDecodingError.self) { _ = try DrawConfig(json: try JSONValue.parse(#"{"pool":{"kind":"checkin","entrants":[1]}}"#)) }
    }

    @Test func winnersLeaveTheCheckinPoolLikeAnyList() throws {
        var harness = try Harness(DrawConfig(pool: .checkin(Self.ids)), seed: 5)
        var seen = Set<DrawValue>()
        for _ in Self.ids {
            let winners = try harness.round()
            #expect(winners.count == 1 && seen.insert(winners[0]).inserted)
        }
        #expect(harness.draw.isExhausted)
    }
}
