import DrawEngine
import Testing
@testable import ClusterCore

/// The seal beside each commitment in the round log (docs/CLUSTER.md): only the cluster key, the
/// draw and the commitment it was made for open it.
@Suite struct SeedSealTests {
    @Test func aSealedSeedOpensOnlyWithItsKeyDrawAndCommitment() throws {
        var generator = SystemRandomNumberGenerator()
        let seed = Seed.random(using: &generator)
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let sealed = SeedSeal.seal(seed, key: key, code: "MAIN")
        #expect(!sealed.isEmpty && !sealed.contains(seed.hex))
        #expect(SeedSeal.open(sealed, key: key, code: "MAIN", commitment: seed.commitment) == seed)
        var otherKey = key
        otherKey[0] ^= 1
        #expect(SeedSeal.open(sealed, key: otherKey, code: "MAIN", commitment: seed.commitment) == nil)
        #expect(SeedSeal.open(sealed, key: key, code: "OTHER", commitment: seed.commitment) == nil)
        #expect(SeedSeal.open(sealed, key: key, code: "MAIN", commitment: String(repeating: "0", count: 64)) == nil)
        var tampered = Array(sealed)
        let index = tampered.index(tampered.startIndex, offsetBy: 30)
        tampered[index] = tampered[index] == "a" ? "b" : "a"
        #expect(SeedSeal.open(String(tampered), key: key, code: "MAIN", commitment: seed.commitment) == nil)
        // A fresh nonce each time.
        #expect(SeedSeal.seal(seed, key: key, code: "MAIN") != sealed)
    }
}
