import RedisStore
import Testing

@Suite struct ChainCursorTests {
    private func entry(_ index: Int, offset: String? = nil, prev: String? = nil) -> LogEntry {
        LogEntry(offset: offset ?? "\(index + 1)-0", index: index, hash: "h\(index)",
                 prev: prev ?? (index == 0 ? LogRecord.genesisPrev : "h\(index - 1)"), json: "{}", token: 1, idempotencyKey: "k\(index)")
    }

    @Test func takesAContinuousChainAndRemembersWhereItStopped() {
        var cursor = ChainCursor()
        #expect(cursor.readStart == "-")
        #expect(cursor.take(LogPage(epoch: "e", entries: [entry(0), entry(1)])) == .success([entry(0), entry(1)]))
        #expect(cursor.readStart == "2-0" && cursor.nextIndex == 2 && cursor.epoch == "e")
        // The next page starts with the entry the cursor stands on, which is checked and dropped.
        #expect(cursor.take(LogPage(epoch: "e", entries: [entry(1), entry(2)])) == .success([entry(2)]))
        #expect(cursor.take(LogPage(epoch: "e", entries: [entry(2)])) == .success([]))
    }

    @Test func reportsEachKindOfBreakAndStaysWhereItWas() {
        var cursor = ChainCursor()
        _ = cursor.take(LogPage(epoch: "e", entries: [entry(0), entry(1)]))
        let before = cursor
        #expect(cursor.take(LogPage(epoch: "other", entries: [entry(1)])) == .failure(.epochChanged(expected: "e", found: "other")))
        #expect(cursor.take(LogPage(epoch: "e", entries: [entry(2)])) == .failure(.offsetMissing("2-0")))
        #expect(cursor.take(LogPage(epoch: "e", entries: [])) == .failure(.offsetMissing("2-0")))
        var replaced = entry(1)
        replaced.hash = "forged"
        #expect(cursor.take(LogPage(epoch: "e", entries: [replaced])) == .failure(.offsetMissing("2-0")))
        #expect(cursor.take(LogPage(epoch: "e", entries: [entry(1), entry(3, prev: "h1")])) == .failure(.brokenLink(offset: "4-0")))
        #expect(cursor.take(LogPage(epoch: "e", entries: [entry(1), entry(2, prev: "x")])) == .failure(.brokenLink(offset: "3-0")))
        #expect(cursor == before)
    }

    @Test func anEmptyLogHasNoEpochYet() {
        var cursor = ChainCursor()
        #expect(cursor.take(LogPage(epoch: "", entries: [])) == .success([]))
        #expect(cursor.epoch == nil)
        #expect(cursor.take(LogPage(epoch: "e", entries: [entry(0)])) == .success([entry(0)]))
    }
}
