@testable import DrawEngine
import Testing

/// `DrawRestorer` folds stored records one at a time (the server streams them from SQLite):
/// the draw it finishes with is the one `Draw(config:restoring:)` rebuilds from the whole list.
@Suite struct DrawRestorerTests {
    @Test func restoringOneRecordAtATimeGivesTheSameDrawAsTheWholeList() throws {
        var harness = try Harness(DrawConfig(pool: .list(["Ann", "Bob", "Cleo", "Dai", "Eve", "Finn"])), seed: 31)
        let first = try harness.round()
        _ = try harness.round()
        harness.records.append(try harness.draw.clear(at: harness.tick()))
        _ = try harness.round()
        _ = try harness.void(round: 3, winner: try #require(harness.draw.board.last?.winners.first))
        var restorer = try DrawRestorer(config: harness.draw.config)
        for record in harness.records { try restorer.add(record) }
        #expect(restorer.recordCount == harness.records.count)
        let streamed = restorer.finish()
        let whole = try Draw(config: harness.draw.config, restoring: harness.records)
        #expect(streamed.phase == .revealed && whole.phase == .revealed)
        #expect(streamed.board == whole.board && streamed.board.count == 1, "the session since the Clear only")
        #expect(streamed.lastResult == whole.lastResult && streamed.lastHash == whole.lastHash)
        #expect(streamed.recordCount == whole.recordCount && streamed.nextRound == 4)
        #expect(streamed.winnersForExclusion(code: "X") == whole.winnersForExclusion(code: "X"))
        #expect(streamed.winnersForExclusion(code: "X").names.isSuperset(of: first.map(\.description)),
                "winners of earlier sessions stay excluded from other draws")
        #expect(streamed.remaining == whole.remaining)
    }

    @Test func aRecordThatDoesNotExtendTheChainIsRefusedWhereItArrives() throws {
        var harness = try Harness(seed: 23)
        _ = try harness.round()
        var restorer = try DrawRestorer(config: harness.draw.config)
        try restorer.add(harness.records[0])
        #expect(throws: DrawError.corruptHistory) { try restorer.add(harness.records[2]) }
        #expect(restorer.recordCount == 1, "the refused record changed nothing")
        try restorer.add(harness.records[1])
        #expect(restorer.recordCount == 2)
    }
}
