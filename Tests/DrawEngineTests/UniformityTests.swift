import Testing
@testable import DrawEngine

/// Chi-square goodness of fit against the uniform distribution. Everything is seeded, so each
/// test has one fixed outcome; thresholds are the p = 0.001 critical values.
@Suite struct UniformityTests {
    @Test func singleWinnersOfTenAreUniform() {
        var counts = [Int](repeating: 0, count: 10)
        var random = SplitMix64(state: 2024)
        let entropy = [UInt8](repeating: 7, count: 32), poolHash = [UInt8](repeating: 9, count: 32)
        for round in 1...20_000 {
            let seed = Seed.random(using: &random)
            let position = Fairness.winnerPositions(seed: seed, round: round, poolHash: poolHash, entropy: entropy, eligible: 10, count: 1)[0]
            counts[Int(position)] += 1
        }
        let statistic = chiSquare(counts)
        #expect(statistic < 27.88, "chi-square \(statistic) with 9 degrees of freedom, seed 2024, counts \(counts)")
    }

    @Test func orderedTriplesOfFiveAreUniform() {
        var counts = [Int: Int]()
        var random = SplitMix64(state: 77)
        let entropy = [UInt8](repeating: 1, count: 32), poolHash = [UInt8](repeating: 2, count: 32)
        for round in 1...30_000 {
            let p = Fairness.winnerPositions(seed: .random(using: &random), round: round, poolHash: poolHash, entropy: entropy, eligible: 5, count: 3)
            #expect(Set(p).count == 3)
            counts[Int(p[0] * 25 + p[1] * 5 + p[2]), default: 0] += 1
        }
        #expect(counts.count == 60)
        let statistic = chiSquare(Array(counts.values))
        #expect(statistic < 99.61, "chi-square \(statistic) with 59 degrees of freedom, seed 77")
    }

    @Test func engineRoundsWithRepeatsHitEveryNumberEvenly() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 4), repeats: true), seed: 5)
        var counts = [Int](repeating: 0, count: 4)
        for _ in 0..<2_000 {
            guard case .number(let n) = try harness.round(contributions: 0)[0] else { Issue.record("not a number"); return }
            counts[Int(n) - 1] += 1
        }
        let statistic = chiSquare(counts)
        #expect(statistic < 16.27, "chi-square \(statistic) with 3 degrees of freedom, seed 5, counts \(counts)")
    }

    private func chiSquare(_ counts: [Int]) -> Double {
        let expected = Double(counts.reduce(0, +)) / Double(counts.count)
        return counts.reduce(0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
    }
}
