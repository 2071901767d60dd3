@testable import DrawRoomCore
import DrawEngine
import JSON
import RoomTestSupport
import Testing

/// Claims (#26) in the room, driven with the manual clock: a win claimed in time stays; an
/// unclaimed one passes to the next alternate at the deadline with the reason on record; when the
/// alternates are used up the prize is left unawarded; late and non-winner claims are refused.
@Suite struct ClaimRoomStateTests {
    static let seconds = 30

    /// A check-in room with `entrants` phones ("device-1"…), closed, a host on page 1, claims on.
    func room(entrants: Int = 6, alternates: Int = 2) throws -> RoomHarness {
        var room = try RoomHarness(config: DrawConfig(pool: .checkin([]), claim: ClaimSetting(seconds: Self.seconds, alternates: alternates)))
        _ = room.command(.checkin(.open(nil)))
        _ = room.handle(.stored(.success(())))
        for n in 1...entrants {
            _ = room.handle(.checkinJoin(CheckinJoin(form: CheckinForm(name: "Person \(n)", fields: []), device: "device-\(n)", code: nil),
                                         caller: UInt64(900 + n)))
            _ = room.handle(.entrantsStored(.success(())))
        }
        _ = room.command(.checkin(.close))
        _ = room.handle(.stored(.success(())))
        room.host()
        return room
    }

    /// Start, Stop, store, and the slow-down to the reveal; returns the round record.
    func drawRound(_ room: inout RoomHarness) throws -> RoundRecord {
        _ = room.start()
        _ = room.command(.stop)
        _ = room.handle(.stored(.success(())))
        while room.state.draw.phase != .revealed {
            room.advance(.milliseconds(50))
            _ = room.handle(.timerDue(.motion))
        }
        guard case .round(let round)? = room.state.draw.lastResult?.body else { throw CommandFailure(code: "no round") }
        return round
    }

    func device(of id: DrawValue, in room: RoomHarness) -> String {
        room.state.checkin.book.entry(id: id.description)!.device!
    }

    func claim(_ room: inout RoomHarness, device: String, caller: UInt64 = 77) -> Result<CommandReply, CommandFailure>? {
        room.handle(.claim(device: device, caller: caller)).compactMap { $0.reply(to: caller) }.first
    }

    func code(_ outcome: Result<CommandReply, CommandFailure>?) -> String? {
        if case .failure(let failure)? = outcome { return failure.code }
        return outcome == nil ? nil : "ok"
    }

    @Test func aWinnerWhoClaimsInTimeKeepsTheWinAndAClaimIsIdempotent() throws {
        var room = try room()
        let round = try drawRound(&room)
        let winner = round.winners[0]
        #expect(round.alternates?.count == 2)
        #expect(room.state.claims.items.map(\.status) == [.open])
        room.advance(.seconds(29))
        #expect(code(claim(&room, device: device(of: winner, in: room))) == "ok")
        #expect(code(claim(&room, device: device(of: winner, in: room), caller: 78)) == "ok")
        #expect(room.state.claims.items.map(\.status) == [.claimed])
        // The deadline passes: nothing is stored, the winner stays.
        room.advance(.seconds(2))
        let due = room.handle(.timerDue(.claims))
        #expect(!due.storesSomething)
        #expect(room.state.draw.board.last?.winners == [winner])
        // Every page's state says so.
        let state = try JSONValue.parse(room.state.stateText(for: nil))
        #expect(state["claims"]?["items"]?.arrayValue?.first?["status"]?.stringValue == "claimed")
    }

    @Test func anUnclaimedWinPassesToTheNextAlternateAtTheDeadlineWithTheReasonOnRecord() throws {
        var room = try room()
        let round = try drawRound(&room)
        let winner = round.winners[0]
        let alternates = try #require(round.alternates)
        // Before the deadline the timer passes nobody; host commands that could skip an alternate wait.
        room.advance(.seconds(29))
        #expect(!room.handle(.timerDue(.claims)).storesSomething)
        let start = room.start()
        #expect(code(start.actions.compactMap { $0.reply(to: start.caller) }.first) == "claim_open")
        let void = room.command(.void(round: round.round, winner: winner, reason: "gone", audience: nil))
        #expect(code(void.actions.compactMap { $0.reply(to: void.caller) }.first) == "claim_open")
        room.advance(.seconds(1))
        let due = room.handle(.timerDue(.claims))
        let batch = try #require(due.compactMap { if case .store(let batch) = $0 { batch } else { nil } }.first)
        #expect(batch.records.map(\.body) == [.pass(round: round.round, winner: winner, alternate: alternates[0], reason: "not claimed in 30 s")])
        // Nothing is announced before it is stored.
        #expect(!due.contains { $0.broadcastJSON?["type"]?.stringValue == "pass" })
        // A late claim is refused with a clear code.
        #expect(code(claim(&room, device: device(of: winner, in: room))) == "claim_closed")
        let stored = room.handle(.stored(.success(())))
        let pass = try #require(stored.compactMap(\.broadcastJSON).first { $0["type"]?.stringValue == "pass" })
        #expect(pass["alternate"]?.stringValue == alternates[0].description)
        #expect(pass["reason"]?.stringValue == "not claimed in 30 s")
        #expect(room.state.draw.board.last?.winners == [alternates[0]])
        #expect(room.state.draw.board.last?.voided.map(\.winner) == [winner])
        #expect(room.state.draw.board.last?.voided.map(\.reason) == ["not claimed in 30 s"])
        // The alternate gets the same window, from now.
        let schedule = try #require(stored.compactMap(\.scheduledAt).first { $0.timer == .claims })
        #expect(schedule.instant == room.time.instant + .seconds(Self.seconds))
        #expect(code(claim(&room, device: device(of: winner, in: room))) == "claim_closed")
        room.advance(.seconds(10))
        #expect(code(claim(&room, device: device(of: alternates[0], in: room))) == "ok")
        #expect(room.state.claims.items.map(\.status) == [.passed, .claimed])
        #expect(!room.state.claims.isOpen)
    }

    @Test func whenEveryAlternateIsUsedThePrizeIsLeftUnawardedAndTheNextRoundCanDraw() throws {
        var room = try room(alternates: 1)
        let round = try drawRound(&room)
        for _ in 0..<2 {
            room.advance(.seconds(Self.seconds))
            _ = room.handle(.timerDue(.claims))
            _ = room.handle(.stored(.success(())))
        }
        let passes = room.state.claims.items.map(\.to)
        #expect(passes == [round.alternates?[0], nil].map { $0?.description })
        #expect(room.state.draw.board.last?.winners == [])
        #expect(room.state.draw.board.last?.voided.count == 2)
        #expect(!room.state.claims.isOpen)
        // Windows ended: the host may go on (both passed people are out of the pool).
        #expect(room.state.draw.remaining == 4)
        let next = try drawRound(&room)
        #expect(next.round == round.round + 1)
    }

    @Test func aPhoneThatDidNotWinCannotClaim() throws {
        var room = try room()
        let round = try drawRound(&room)
        let others = (1...6).map { "device-\($0)" }.filter { $0 != device(of: round.winners[0], in: room) }
        #expect(code(claim(&room, device: others[0])) == "not_winner")
        #expect(code(claim(&room, device: "no-such-device")) == "not_winner")
        // An alternate is not a winner until the win passes to them.
        #expect(code(claim(&room, device: device(of: round.alternates![0], in: room))) == "not_winner")
        #expect(room.state.claims.items.map(\.status) == [.open])
    }
}
