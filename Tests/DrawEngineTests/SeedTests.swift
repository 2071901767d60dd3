import Dispatch
import Synchronization
import Testing
@testable import DrawEngine

/// A round's seed (docs/FAIRNESS.md §1): 32 bytes, four generator words big-endian.
struct SeedTests {
    /// A generator that returns the words it was given, in order.
    struct Words: RandomNumberGenerator {
        var words: [UInt64]
        mutating func next() -> UInt64 { words.removeFirst() }
    }

    @Test func aGeneratorsFourWordsAreTheSeedsBytesBigEndian() {
        var generator = Words(words: [0x0102_0304_0506_0708, 0x1112_1314_1516_1718, 0x2122_2324_2526_2728, 0xF1F2_F3F4_F5F6_F7F8])
        let seed = Seed.random(using: &generator)
        #expect(Hex.encode(seed.bytes) == "0102030405060708" + "1112131415161718" + "2122232425262728" + "f1f2f3f4f5f6f7f8")
        #expect(generator.words.isEmpty)
    }

    /// Many threads commit at once (draws created, restored and taken over in parallel). Under
    /// ThreadSanitizer (scripts/test, CI) this is also the check that making a seed is no "Swift
    /// access race": a storage-less generator passed inout through a generic function was reported as
    /// one (swiftlang/swift#66099), which `Seed.fresh()` avoids.
    @Test func freshSeedsMadeOnManyThreadsAtOnceAreAllDifferent() {
        let seen = Mutex<[[UInt8]]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let made = (0..<200).map { _ in Seed.fresh().bytes }
            seen.withLock { $0 += made }
        }
        let all = seen.withLock { $0 }
        #expect(all.count == 1600 && all.allSatisfy { $0.count == 32 })
        #expect(Set(all).count == all.count)
    }
}
