@testable import DrawEngine
import JSON
import Testing

/// Expected values were computed by the Python script in docs/FAIRNESS.md §12 (hashlib/hmac),
/// an implementation independent of this module.
@Suite struct FairnessVectorTests {
    let seed = Seed(bytes: Array(0..<32))!
    let contributions = ["ffeeddccbbaa99887766554433221100", "00112233445566778899aabbccddeeff"].compactMap(Contribution.init(hex:)).sorted()

    @Test func commitmentIsSHA256OfTheSeed() {
        #expect(seed.commitment == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd")
    }

    @Test func entropyDigestMatchesThePythonReference() {
        #expect(Hex.encode(Fairness.entropyDigest(contributions: contributions, audience: "42"))
                == "d4933bdb82b291aeaea0031e2a1a3fdf3256fb058625180a295795155f062b92")
        #expect(Hex.encode(Fairness.entropyDigest(contributions: [], audience: nil))
                == "82720abe08c630af02ca29a2d4874dca8e2ba3635845c7908744752c7811961e")
    }

    @Test func rangeWinnersMatchThePythonReference() {
        let spec = PoolSpec.range(from: 1, to: 500, removed: [7, 13])
        #expect(spec.poolHash == "5eef4c208d94a90f1c6a9f17b355979c46e415842f79b696e9ccbd5cc1196d20")
        #expect(winners(spec, entrants: nil, round: 1, audience: "42", count: 5) == [311, 179, 323, 226, 413].map(DrawValue.number))
    }

    @Test func rangeOfTenToTheTwelveMatchesThePythonReference() {
        let spec = PoolSpec.range(from: 1, to: 1_000_000_000_000, removed: [])
        #expect(spec.poolHash == "dc6484805307c3779d0f52e2d1e840d9e739884121fc30348ccf6eb7df38288a")
        let entropy = Fairness.entropyDigest(contributions: [], audience: nil)
        let pool = EligiblePool(spec: spec, entrants: nil)!
        let picked = Fairness.winnerPositions(seed: seed, round: 7, poolHash: Hex.decode(spec.poolHash)!, entropy: entropy,
                                              eligible: pool.count, count: 3).map(pool.element(at:))
        #expect(picked == [469_755_620_688, 554_192_403_961, 202_233_061_840].map(DrawValue.number))
    }

    @Test func listWinnersMatchThePythonReference() {
        let names = ["Ann", "Bob", "Zoë", "\"Q\"\\", "李雷", "韩梅梅"]
        let hash = Hashing.sha256Hex(JSONValue.array(names.map { .string($0) }).canonicalBytes)
        #expect(hash == "c7ab2b06d4a400df4bac41e4544c022e01cd08d18b5bdaab6748826166c16e6c")
        let spec = PoolSpec.list(count: 6, entrantsHash: hash, removed: [1])
        #expect(spec.poolHash == "4c692a0fa27fa307f9dde2eb627bc2c4ec7d6e15402309be1205829da73db617")
        #expect(winners(spec, entrants: names, round: 3, audience: "42", count: 5)
                == ["Zoë", "\"Q\"\\", "Ann", "韩梅梅", "李雷"].map(DrawValue.name))
    }

    @Test func uniformRejectsWordsAtOrAboveTheLimitAndAlwaysConsumesAWord() {
        var stream = WordStream(seed: seed, round: 1, poolHash: [UInt8](repeating: 0, count: 32), entropy: [UInt8](repeating: 0, count: 32))
        // m = 2^63 + 1: limit = 2^63 + 1, so the first three words (≥ 2^63 + 1) are rejected.
        #expect(stream.uniform((1 << 63) + 1) == 3_063_912_838_101_881_589)
        #expect(stream.uniform(3) == 2)
        #expect(stream.uniform(1) == 0)
        #expect(stream.next() == 15_761_690_429_210_126_063)
    }

    @Test func eligiblePositionsSkipRemovedEntries() {
        let pool = EligiblePool(spec: .range(from: 10, to: 19, removed: [10, 12, 13, 19]), entrants: nil)!
        #expect(pool.count == 6)
        #expect((0..<6).map { pool.element(at: $0) } == [11, 14, 15, 16, 17, 18].map(DrawValue.number))
        #expect(EligiblePool(spec: .range(from: 10, to: 19, removed: [13, 12]), entrants: nil) == nil)
        #expect(EligiblePool(spec: .range(from: 10, to: 19, removed: [20]), entrants: nil) == nil)
    }

    private func winners(_ spec: PoolSpec, entrants: [String]?, round: Int, audience: String?, count: Int) -> [DrawValue] {
        let entropy = Fairness.entropyDigest(contributions: contributions, audience: audience)
        let pool = EligiblePool(spec: spec, entrants: entrants)!
        return Fairness.winnerPositions(seed: seed, round: round, poolHash: Hex.decode(spec.poolHash)!, entropy: entropy,
                                        eligible: pool.count, count: count).map(pool.element(at:))
    }
}
