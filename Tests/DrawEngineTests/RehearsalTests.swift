import JSON
import Testing
@testable import DrawEngine

/// Rehearsal rounds (docs/FAIRNESS.md §19): marked in the record, never in one session with real
/// rounds, wiped by a `clear` with `rehearsal` that only a rehearsal session may take.
@Suite struct RehearsalTests {
    @Test func aRehearsalIsMarkedWipedAndNeverMixedWithTheRealEvent() throws {
        var config = DrawConfig(pool: .range(from: 1, to: 50), perStop: .count(2), rehearsal: true)
        var harness = try Harness(config, seed: 17)
        #expect(throws: DrawError.notRehearsal) { try harness.draw.clear(at: harness.tick(), rehearsal: true) }
        let rehearsed = try harness.round()
        _ = try harness.void(round: 1, winner: rehearsed[0])
        let rounds = harness.records.compactMap { record -> RoundRecord? in
            if case .round(let r) = record.body { return r }
            return nil
        }
        #expect(rounds.count == 2 && rounds.allSatisfy(\.rehearsal))
        #expect(harness.records.last(where: { $0.kind == "round" })?.json["rehearsal"] == .bool(true))
        // Going live with rehearsal rounds on the board is refused: wipe them first.
        config.rehearsal = false
        #expect(throws: DrawError.rehearsalMixed) { try harness.draw.configure(config) }
        let wipe = try harness.draw.clear(at: harness.tick(), rehearsal: true)
        harness.records.append(wipe)
        #expect(wipe.json["rehearsal"] == .bool(true) && harness.draw.board.isEmpty)
        _ = try harness.draw.configure(config)
        let real = try harness.round()
        // The rehearsal's winners may win for real: the wipe ended their session.
        #expect(real.count == 2)
        #expect(harness.records.last(where: { $0.kind == "round" })?.json["rehearsal"] == nil)
        // A session of real rounds cannot be wiped, nor turned into a rehearsal.
        #expect(throws: DrawError.notRehearsal) { try harness.draw.clear(at: harness.tick(), rehearsal: true) }
        config.rehearsal = true
        #expect(throws: DrawError.rehearsalMixed) { try harness.draw.configure(config) }
        let report = harness.verify()
        #expect(report.passed)
        #expect(report.checks.filter { $0.notes.contains { $0.hasPrefix("REHEARSAL") } }.count == 2)
        // Restored from its records, the draw knows the session is real.
        let restored = try Draw(config: harness.draw.config, restoring: harness.records)
        #expect(restored.sessionRehearsal == false)
        // The settings carry the flag only when set (older settings hash as before).
        #expect(try DrawConfig(json: config.json).rehearsal && DrawConfig.standard.json["rehearsal"] == nil)
    }
}
