@testable import DrawEngine
import JSON
import Testing

@Suite struct ChainTests {
    @Test func sampleExportVerifies() throws {
        let report = try RoundVerifier.verify(exportText: SampleDraw.export())
        #expect(report.passed, "\(report.checks.filter { !$0.ok }.map(\.line))")
        #expect(report.roundCount == 6)
        #expect(report.code == "SAMPLE")
        #expect(report.checks.flatMap(\.notes).count == 1)
    }

    @Test func restartAfterAClearComesBackIdle() throws {
        var harness = try Harness(seed: 23)
        try harness.round()
        harness.records.append(try harness.draw.clear(at: harness.tick()))
        let restored = try Draw(config: harness.draw.config, restoring: harness.records)
        #expect(restored.phase == .idle && restored.board.isEmpty && restored.lastResult == nil)
        #expect(try Draw(config: .standard, restoring: []).phase == .idle)
    }

    @Test func storedRecordsReadBackIdentically() throws {
        var harness = try Harness(DrawConfig(pool: .list(["Ann", "Bob", "C\"D\\E", "李雷"])), seed: 20)
        try harness.round()
        for record in harness.records {
            let again = try DrawRecord(text: record.canonicalJSON)
            #expect(again == record)
            #expect(again.computedHash == record.hash)
        }
    }

    typealias Tamper = @Sendable (inout [JSONValue]) -> Void

    static let tampers: [(String, Tamper)] = [
        ("winner changed", { set(&$0, 1, "winners", .array([.int(1)])) }),
        ("winner changed and rehashed", { set(&$0, 1, "winners", .array([.int(1)])); rehash(&$0, 1) }),
        ("seed changed and rehashed", { set(&$0, 1, "seed", .string(String(repeating: "ab", count: 32))); rehash(&$0, 1) }),
        ("contribution added and rehashed", {
            set(&$0, 1, "contributions", .array([.string(String(repeating: "0", count: 32))])); rehash(&$0, 1)
        }),
        ("record removed", { $0.remove(at: 2) }),
        ("records swapped", { $0.swapAt(1, 2) }),
        ("pool shrunk and rehashed", {
            set(&$0, 1, "pool", .object(["kind": .string("range"), "from": .int(1), "to": .int(10), "removed": .array([])])); rehash(&$0, 1)
        }),
    ]

    @Test(arguments: tampers.indices)
    func tamperedHistoryFailsVerification(case index: Int) throws {
        var harness = try Harness(seed: 21)
        try harness.round()
        try harness.round()
        var records = harness.records.map(\.json)
        #expect(RoundVerifier.verify(records: records).passed)
        Self.tampers[index].1(&records)
        #expect(!RoundVerifier.verify(records: records).passed, "\(Self.tampers[index].0)")
    }

    @Test func restartKeepsAnnouncedRoundsAndComesBackRevealedWithAFreshCommitment() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 50), perStop: .count(2)), seed: 22)
        try harness.round()
        let winners = try harness.round()
        try harness.void(round: 2, winner: winners[0])
        harness.records += try harness.draw.start(contributions: [], at: harness.tick())  // killed while rolling: its lock is stored
        let stored = try harness.records.map { record throws(RecordError) in try DrawRecord(text: record.canonicalJSON) }

        var restored = try Draw(config: harness.draw.config, restoring: stored)
        // The round that was only rolling is gone; the last announced one is on show again.
        #expect(restored.phase == .revealed)
        #expect(restored.board == harness.draw.board)
        #expect(restored.lastResult == harness.draw.lastResult && restored.lastResult != nil)
        #expect(restored.commit == nil)
        #expect(throws: DrawError.notCommitted) { try restored.start(contributions: [], at: 0) }
        var random = SplitMix64(state: 5)
        let commit = try restored.prepareCommitment(seed: .random(using: &random), at: harness.tick())
        guard case .commit(_, let reason) = commit.body else { Issue.record("no commit"); return }
        #expect(reason == .restart)
        harness.draw = restored
        harness.records.append(commit)
        let next = try harness.round()
        #expect(Set(next).isDisjoint(with: harness.draw.board.dropLast().flatMap(\.winners) + [winners[0]]))
        #expect(harness.draw.board.last?.round == 3)
        let report = harness.verify()
        #expect(report.passed)
        // The abandoned lock (its roll cut short) and the abandoned commitment, both on the record.
        let notes = report.checks.flatMap(\.notes)
        #expect(notes.count == 2)
        #expect(notes.contains { $0.hasPrefix("WARNING: lock of round 3 abandoned") })
    }

    /// A lock no round follows is accepted only as a roll a restart cut short: followed by the
    /// restart's `commit`, or by a new Start's lock of the same round. Anything else after it
    /// (another kind of commit, another round's lock) fails "lock without its round".
    @Test func anAbandonedLockPassesOnlyWhereARestartCutTheRollShort() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 50)), seed: 31)
        try harness.round()
        harness.records += try harness.draw.start(contributions: [], at: harness.tick())  // killed while rolling
        var restored = try Draw(config: harness.draw.config, restoring: harness.records)
        var random = SplitMix64(state: 9)
        harness.records.append(try restored.prepareCommitment(seed: .random(using: &random), at: harness.tick()))
        harness.draw = restored
        try harness.round()
        let records = harness.records.map(\.json)
        #expect(RoundVerifier.verify(records: records).passed)
        let abandoned = try #require(records.firstIndex { $0["kind"]?.stringValue == "lock" && $0["round"]?.intValue == 2 })
        #expect(records[abandoned + 1]["reason"]?.stringValue == "restart")

        var notRestart = records
        Self.set(&notRestart, abandoned + 1, "reason", .string("next"))
        #expect(RoundVerifier.verify(records: Self.relinked(notRestart)).checks[abandoned + 1].problem == LockCheck.lockWithoutRound)

        var otherRound = records
        otherRound.remove(at: abandoned + 1)  // the restart's commit: the next lock follows the abandoned one
        Self.set(&otherRound, abandoned + 1, "commitment", records[abandoned]["commitment"]!)
        Self.set(&otherRound, abandoned + 1, "round", .int(3))
        #expect(RoundVerifier.verify(records: Self.relinked(otherRound)).checks[abandoned + 1].problem == LockCheck.lockWithoutRound)
    }

    @Test func restoreRefusesABrokenChain() throws {
        var harness = try Harness(seed: 23)
        try harness.round()
        var stored = harness.records
        stored.remove(at: 1)
        #expect(throws: DrawError.corruptHistory) { _ = try Draw(config: .standard, restoring: stored) }
    }

    private static func set(_ records: inout [JSONValue], _ index: Int, _ key: String, _ value: JSONValue) {
        guard case .object(var members) = records[index] else { return }
        members[key] = value
        records[index] = .object(members)
    }

    /// Every record re-indexed, re-linked and re-hashed, so only what the test changed differs.
    private static func relinked(_ list: [JSONValue]) -> [JSONValue] {
        var out = [JSONValue]()
        for (index, record) in list.enumerated() {
            guard case .object(var members) = record else { continue }
            members["index"] = .int(Int64(index))
            members["prev"] = .string(out.last?["hash"]?.stringValue ?? DrawRecord.genesisPrev)
            members["hash"] = nil
            members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
            out.append(.object(members))
        }
        return out
    }

    private static func rehash(_ records: inout [JSONValue], _ index: Int) {
        guard case .object(var members) = records[index] else { return }
        members["hash"] = nil
        members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
        records[index] = .object(members)
    }
}
