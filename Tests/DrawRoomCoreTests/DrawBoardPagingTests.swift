@testable import DrawRoomCore
import DrawEngine
import JSON
import RoomTestSupport
import Testing

/// The board is bounded in `state` and paged over REST (issue #18): a join costs a few
/// kilobytes whatever the rounds hold, and every winner is still one request away.
@Suite struct DrawBoardPagingTests {
    /// Start, Stop, the store's answer and the slow-down's timers until the round is revealed.
    static func drawRound(_ room: inout RoomHarness) {
        _ = room.start()
        _ = room.command(.stop)
        _ = room.handle(.stored(.success(())))
        for _ in 0..<60 where room.state.draw.phase == .stopping {
            room.advance(.milliseconds(100))
            _ = room.handle(.timerDue(.motion))
        }
    }

    /// A list room with `rounds` revealed rounds of `perStop` winners each.
    static func room(names: Int, perStop: Int, rounds: Int, padding: Int = 0) throws -> RoomHarness {
        var room = try RoomHarness()
        room.host(1)
        let list = (0..<names).map { "Guest number \($0 + 10_000)" + String(repeating: "x", count: padding) }
        _ = room.command(.configure(DrawConfig(pool: .list(list), perStop: .count(perStop))))
        _ = room.handle(.stored(.success(())))
        for _ in 0..<rounds { drawRound(&room) }
        return room
    }

    /// Every winner of `round`, read page by page from `boardPage`.
    static func allPages(_ state: DrawRoomState, round: Int, limit: Int) throws -> (winners: [JSONValue], pages: Int) {
        var winners = [JSONValue]()
        var pages = 0
        while true {
            guard case .page(let page) = state.boardPage(BoardPageRequest(round: round, offset: winners.count, limit: limit)) else {
                throw TestFailure("no page for round \(round)")
            }
            let items = page["winners"]?.arrayValue ?? []
            #expect(page["total"]?.intValue == Int64(state.draw.board.first { $0.round == round }?.winners.count ?? -1))
            if items.isEmpty { break }
            #expect(items.count <= limit)
            winners += items
            pages += 1
        }
        return (winners, pages)
    }

    @Test func theStateOfTenThousandWinnerRoundsStaysUnder16KB() throws {
        var room = try Self.room(names: 20_000, perStop: 1_000, rounds: 10)
        #expect(room.state.draw.board.count == 10)
        let sent = try #require(room.handle(.joined(50, remote: "10.0.5.0")).compactMap(\.sent).first { $0.to == 50 })
        #expect(sent.text.utf8.count < 16_384, "state is \(sent.text.utf8.count) bytes")
        let state = try JSONValue.parse(sent.text)
        let rounds = try #require(state["rounds"]?.arrayValue)
        #expect(rounds.map { $0["round"]?.intValue } == (1...10).map { Int64($0) })
        for round in rounds {
            #expect(round["winners"]?.arrayValue?.count == BoardSummary.winnersPerRound)
            #expect(round["winnerCount"]?.intValue == 1_000)
            #expect(round["more"] == .bool(true))
        }
        #expect(state["olderRounds"]?.intValue == 0)
        // The latest result is listed by its first winners; the live `result` stays whole.
        let result = try #require(state["result"])
        let record = try #require(room.state.draw.lastResult)
        guard case .round(let drawn) = record.body else { throw TestFailure("not a round") }
        #expect(result["winners"]?.arrayValue == drawn.winners.prefix(BoardSummary.winnersPerRound).map(\.json))
        #expect(result["winnerCount"]?.intValue == 1_000)
        #expect(result["more"] == .bool(true))
        #expect(result["hash"]?.stringValue == record.hash)
        // The pool lock's list of earlier winners grows every round: counted, not listed.
        #expect(result["pool"]?["removed"] == nil)
        #expect(result["pool"]?["removedCount"]?.intValue == 9_000)
        #expect(result["contributions"] == nil)
        #expect(record.resultMessage()?["winners"]?.arrayValue?.count == 1_000)
    }

    @Test func theLiveResultCostsItsOwnWinnersNotTheHistory() throws {
        let room = try Self.room(names: 20_000, perStop: 1_000, rounds: 10)
        let first = try #require(Self.room(names: 20_000, perStop: 1_000, rounds: 1).state.draw.lastResult)
        let last = try #require(room.state.draw.lastResult)
        let firstText = try #require(first.resultMessage()).canonicalString
        let lastMessage = try #require(last.resultMessage())
        // Every winner of the reveal, the pool's 9,000 earlier winners counted; the record whole.
        #expect(lastMessage["winners"]?.arrayValue?.count == 1_000)
        #expect(lastMessage["pool"]?["removed"] == nil)
        #expect(lastMessage["pool"]?["removedCount"]?.intValue == 9_000)
        #expect(lastMessage["pool"]?["count"]?.intValue == 20_000)
        guard case .round(let round) = last.body, case .list(_, _, let removed, _, _) = round.pool else {
            throw TestFailure("not a list round")
        }
        #expect(removed.count == 9_000, "the stored record keeps the list")
        let lastText = lastMessage.canonicalString
        let (lastBytes, firstBytes) = (lastText.utf8.count, firstText.utf8.count)
        #expect(lastBytes < firstBytes + 1_000, "round 10: \(lastBytes) bytes, round 1: \(firstBytes)")
        // A short list stays in the message as it is stored.
        let small = try Self.room(names: 500, perStop: 30, rounds: 3)
        let smallResult = try #require(small.state.draw.lastResult?.resultMessage())
        #expect(smallResult["pool"]?["removed"]?.arrayValue?.count == 60)
        #expect(smallResult["pool"]?["removedCount"] == nil)
    }

    @Test func aBoardOfManySmallRoundsListsTheLatestAndCountsTheRest() throws {
        let room = try Self.room(names: 500, perStop: 30, rounds: 12)
        let state = try JSONValue.parse(room.state.stateText(for: nil))
        let rounds = try #require(state["rounds"]?.arrayValue)
        // 20 listed winners a round, at most 200 in all: the latest 10 rounds.
        #expect(rounds.map { $0["round"]?.intValue } == (3...12).map { Int64($0) })
        #expect(state["olderRounds"]?.intValue == 2)
        #expect(state.canonicalString.utf8.count < 16_384)
        // The older ones are a page of the summaries away, newest first.
        guard case .page(let page) = room.state.boardPage(BoardPageRequest(round: nil, offset: 10, limit: 50)) else {
            throw TestFailure("no rounds page")
        }
        #expect(page["total"]?.intValue == 12)
        #expect(page["rounds"]?.arrayValue?.map { $0["round"]?.intValue } == [2, 1])
    }

    @Test func longNamesListFewerRounds() throws {
        // 20 listed names of 150 bytes a round: about 3 KB a round, 6 KB in all.
        let room = try Self.room(names: 500, perStop: 20, rounds: 5, padding: 132)
        let state = try JSONValue.parse(room.state.stateText(for: nil))
        #expect(state["rounds"]?.arrayValue?.map { $0["round"]?.intValue } == [4, 5])
        #expect(state["olderRounds"]?.intValue == 3)
        #expect(state.canonicalString.utf8.count < 16_384)
    }

    @Test(arguments: [1, 7, 200, 1_000])
    func pagesHoldEveryWinnerOnceInTheResultsOrder(limit: Int) throws {
        let room = try Self.room(names: 3_000, perStop: 1_000, rounds: 2)
        let record = try #require(room.state.draw.lastResult)
        guard case .round(let drawn) = record.body else { throw TestFailure("not a round") }
        let (winners, pages) = try Self.allPages(room.state, round: 2, limit: limit)
        #expect(winners == drawn.winners.map(\.json))
        #expect(Set(winners.compactMap(\.stringValue)).count == 1_000)
        #expect(pages == (1_000 + limit - 1) / limit)
        let first = try Self.allPages(room.state, round: 1, limit: limit).winners
        #expect(first == room.state.draw.board[0].winners.map(\.json))
        #expect(room.state.boardPage(BoardPageRequest(round: 3, offset: 0, limit: 10)) == .unknownRound)
    }

    @Test func aRoundStillSlowingDownIsNeitherListedNorPaged() throws {
        var room = try Self.room(names: 500, perStop: 30, rounds: 1)
        _ = room.start()
        _ = room.command(.stop)
        _ = room.handle(.stored(.success(())))
        #expect(room.state.draw.phase == .stopping)
        #expect(room.state.boardPage(BoardPageRequest(round: 2, offset: 0, limit: 10)) == .unknownRound)
        let state = try JSONValue.parse(room.state.stateText(for: nil))
        #expect(state["rounds"]?.arrayValue?.map { $0["round"]?.intValue } == [1])
        #expect(state["result"] == .null)
    }

    @Test func aSharedSnapshotOfALongBoardEqualsAFreshlyBuiltOne() throws {
        var room = try Self.room(names: 5_000, perStop: 400, rounds: 3)
        let first = room.handle(.joined(60, remote: "10.0.6.0"))
        let second = room.handle(.joined(61, remote: "10.0.6.1"))
        guard case .sendState(let a, _)? = first.first(where: { if case .sendState = $0 { true } else { false } }),
              case .sendState(let b, _)? = second.first(where: { if case .sendState = $0 { true } else { false } }) else {
            throw TestFailure("no shared snapshot")
        }
        // One key: the shell encodes one frame for both.
        #expect(a.key != nil && a.key == b.key && a.text == b.text)
        room.advance(.seconds(1))
        _ = room.handle(.timerDue(.viewers))
        let shared = try #require(room.handle(.joined(62, remote: "10.0.6.2")).compactMap(\.sent).first { $0.to == 62 })
        #expect(try JSONValue.parse(shared.text) == JSONValue.parse(room.state.stateText(for: 62)))
    }

    @Test func aCheckedInWinnerPastTheListedOnesStillLearnsItWon() throws {
        var room = try RoomHarness(config: DrawConfig(pool: .checkin([])))
        room.host(1)
        _ = room.command(.checkin(.open(nil)))
        _ = room.handle(.stored(.success(())))
        for n in 1...70 {
            let form = CheckinForm(name: "Person \(n)", fields: [])
            _ = room.handle(.checkinJoin(CheckinJoin(form: form, device: "device-\(n)", code: nil), caller: UInt64(1_000 + n)))
        }
        var writing = true
        for _ in 0..<10 where writing {
            writing = room.handle(.entrantsStored(.success(()))).contains { if case .storeEntrants = $0 { true } else { false } }
        }
        #expect(room.state.checkin.book.activeCount == 70)
        _ = room.command(.checkin(.close))
        _ = room.handle(.stored(.success(())))
        _ = room.command(.configure(DrawConfig(pool: .checkin([]), perStop: .count(60))))
        _ = room.handle(.stored(.success(())))
        Self.drawRound(&room)
        #expect(room.state.draw.phase == .revealed)
        let winners = room.state.draw.board[0].winners
        #expect(winners.count == 60)
        // The last winner drawn: not among the ones `state` lists.
        guard case .name(let lastID) = try #require(winners.last) else { throw TestFailure("not an id") }
        let device = try #require(room.state.checkin.book.entries.first { $0.id == lastID }?.device)
        _ = room.handle(.joined(70, remote: "10.0.7.0"))
        _ = room.handle(.deviceLinked(70, device: device))
        let state = try JSONValue.parse(room.state.stateText(for: 70))
        let listed = state["rounds"]?.arrayValue?.first?["winners"]?.arrayValue ?? []
        #expect(!listed.contains(.string(lastID)))
        #expect(state["checkin"]?["me"]?["id"]?.stringValue == lastID)
        #expect(state["checkin"]?["me"]?["wins"] == .array([.int(1)]))
        // Another entrant's phone learns it did not win.
        let loser = try #require(room.state.checkin.book.entries.first { entry in !winners.contains(.name(entry.id)) })
        _ = room.handle(.joined(71, remote: "10.0.7.1"))
        _ = room.handle(.deviceLinked(71, device: try #require(loser.device)))
        #expect(try JSONValue.parse(room.state.stateText(for: 71))["checkin"]?["me"]?["wins"] == .array([]))
    }
}
