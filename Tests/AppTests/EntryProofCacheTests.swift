import DrawEngine
import Locking
import Testing
@testable import App

/// The phones' entry proofs come from memory after a round's first request (EntryProofCache):
/// one build per round however many ask at once, bounded by rounds and entries, dropped when
/// the draw is deleted; failures are never kept.
@Suite struct EntryProofCacheTests {
    /// A list draw of `names` with one round drawn: its chain.
    static func chain(_ names: [String]) throws -> [DrawRecord] {
        var draw = try Draw(config: DrawConfig(pool: .list(names), perStop: .count(1)))
        var records = [try draw.prepareCommitment(seed: Seed(bytes: Array(repeating: 7, count: 32))!, at: 1_000)]
        records += try draw.start(contributions: [], at: 2_000)
        records += try draw.stop(at: 3_000, nextSeed: Seed(bytes: Array(repeating: 8, count: 32))!)
        return records
    }

    static func tree(_ names: [String]) throws -> EntryProof.Round {
        try EntryProof.Round(records: chain(names), round: 1)
    }

    /// A build the test finishes by hand; counts how often it was asked.
    final class Builds: Sendable {
        let pending = Lock<[@Sendable (EntryProofCache.Built) -> Void]>([])
        var count: Int { pending.withLock { $0.count } }
        func start(_ done: @escaping @Sendable (EntryProofCache.Built) -> Void) { pending.withLock { $0.append(done) } }
        func finish(_ built: EntryProofCache.Built) { for done in pending.withLock({ $0 }) { done(built) } }
    }

    final class Answers: Sendable {
        let seen = Lock<[String]>([])
        func record(_ built: EntryProofCache.Built) {
            let text = switch built {
            case .round(let tree): "round \(tree.round) of \(tree.size)"
            case .failed(let failure): failure.code
            case .unreadable(let code): code
            }
            seen.withLock { $0.append(text) }
        }
        var all: [String] { seen.withLock { $0 } }
    }

    @Test func aRoundIsBuiltOnceForEveryoneWhoAsks() throws {
        let cache = EntryProofCache()
        let builds = Builds(), answers = Answers()
        let key = EntryProofCache.Key(code: "ROOM", round: 1)
        for _ in 0..<50 { cache.round(key, build: builds.start, then: answers.record) }
        #expect(builds.count == 1 && answers.all.isEmpty, "the 49 others wait for the first build")
        builds.finish(.round(try Self.tree(["Ann", "Bob", "Cy"])))
        #expect(answers.all == Array(repeating: "round 1 of 3", count: 50))
        // Later requests: from memory, no build.
        cache.round(key, build: { _ in Issue.record("built again") }, then: answers.record)
        #expect(answers.all.count == 51 && cache.keptRounds == 1)
        // The kept tree proves every entry as the chain does.
        let records = try Self.chain(["Ann", "Bob", "Cy"])
        let tree = try EntryProof.Round(records: records, round: 1)
        for name in ["Ann", "Bob", "Cy"] {
            #expect(try tree.proof(entry: name) == EntryProof.proof(records: records, round: 1, entry: name))
        }
    }

    @Test func failuresAreNotKept() {
        let cache = EntryProofCache()
        let answers = Answers()
        let key = EntryProofCache.Key(code: "ROOM", round: 2)
        cache.round(key, build: { $0(.failed(.unknownRound)) }, then: answers.record)
        cache.round(key, build: { $0(.unreadable("storage_failed")) }, then: answers.record)
        #expect(answers.all == ["unknown_round", "storage_failed"] && cache.keptRounds == 0)
    }

    @Test func memoryIsBoundedByRoundsEntriesLifetimeAndDeletion() throws {
        let small = try Self.tree(["Ann", "Bob"])
        let cache = EntryProofCache(maxRounds: 3, maxEntries: 5, lifetime: .seconds(3600))
        let answers = Answers()
        func ask(_ code: String, _ round: Int, _ tree: EntryProof.Round) {
            cache.round(.init(code: code, round: round), build: { $0(.round(tree)) }, then: answers.record)
        }
        ask("A", 1, small)
        ask("A", 2, small)
        #expect(cache.keptRounds == 2)
        ask("B", 1, small)  // 6 entries > 5: the least recently used (A 1) goes
        #expect(cache.keptRounds == 2)
        var rebuilt = false
        cache.round(.init(code: "A", round: 1), build: { rebuilt = true; $0(.round(small)) }, then: answers.record)
        #expect(rebuilt)
        // A tree larger than the whole budget is served but not kept.
        ask("C", 1, try Self.tree(["1", "2", "3", "4", "5", "6"]))
        #expect(answers.all.last == "round 1 of 6" && cache.keptRounds == 2)
        cache.forget("A")
        #expect(cache.keptRounds == 1)
        // Past its lifetime a tree is built again.
        let brief = EntryProofCache(lifetime: .zero)
        var builds = 0
        for _ in 0..<2 { brief.round(.init(code: "A", round: 1), build: { builds += 1; $0(.round(small)) }, then: answers.record) }
        #expect(builds == 2)
    }

    @Test func namesEqualOnlyCanonicallyAreEachProvedByTheirOwnBytes() throws {
        let composed = "Zo\u{eb}", decomposed = "Zoe\u{308}"
        let records = try Self.chain(["Ann", decomposed, composed])
        let tree = try EntryProof.Round(records: records, round: 1)
        #expect(try tree.proof(entry: composed)["entry"]?["position"]?.intValue == 2)
        #expect(try tree.proof(entry: decomposed)["entry"]?["position"]?.intValue == 1)
        #expect(throws: EntryProof.Failure.unknownEntry) { try tree.proof(entry: "Zoe") }
    }
}
