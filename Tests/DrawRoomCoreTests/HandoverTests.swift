@testable import DrawRoomCore
import DrawEngine
import JSON
import RoomTestSupport
import Testing

/// Prize vouchers (issue 45): the code (bound to the key, draw, round and winner; its check
/// character catches a typo), and the room's hand-over rules: a look-up changes nothing, a
/// hand-over is stored (an audit entry naming the operator) before anything is announced, the
/// same voucher twice, a voided winner's, a typo and a code no winner holds are refused; the
/// winner's phone alone hears its voucher; the hand-overs read back make the same list.
@Suite struct HandoverTests {
    static let key = Array("voucher key for the tests 123456".utf8)

    // MARK: The code

    @Test func aCodeIsBoundToTheKeyTheDrawTheRoundAndTheWinner() {
        let code = VoucherCode.make(key: Self.key, draw: "ABCD", round: 1, winner: "7QK2")
        #expect(code.count == 9 && code.split(separator: "-").map(\.count) == [4, 4])
        #expect(code == VoucherCode.make(key: Self.key, draw: "ABCD", round: 1, winner: "7QK2"))
        let others = [VoucherCode.make(key: Self.key, draw: "ABCE", round: 1, winner: "7QK2"),
                      VoucherCode.make(key: Self.key, draw: "ABCD", round: 2, winner: "7QK2"),
                      VoucherCode.make(key: Self.key, draw: "ABCD", round: 1, winner: "7QK3"),
                      VoucherCode.make(key: Array("another server's key".utf8), draw: "ABCD", round: 1, winner: "7QK2")]
        #expect(!others.contains(code))
        #expect(VoucherCode.normalize(code) == code)
    }

    @Test func typedVariantsAreReadAndEveryTypoIsCaught() throws {
        let code = VoucherCode.make(key: Self.key, draw: "ABCD", round: 3, winner: "X1")
        #expect(VoucherCode.normalize(String(code.lowercased().map { $0 == "-" ? " " : $0 })) == code)
        #expect(VoucherCode.normalize(code + "0") == nil)
        #expect(VoucherCode.normalize(String(code.dropLast())) == nil)
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        let chars = code.filter { $0 != "-" }.map { $0 }
        // Every single wrong character except 0 ↔ Z (values 31 apart) fails the check.
        for i in chars.indices {
            for c in alphabet where c != chars[i] {
                var typo = chars
                typo[i] = c
                let a = alphabet.firstIndex(of: chars[i])!, b = alphabet.firstIndex(of: c)!
                if a - b == 31 || b - a == 31 { continue }
                #expect(VoucherCode.normalize(String(typo)) == nil, "\(String(typo))")
            }
        }
        // Two neighbours swapped: caught too (unless equal or 31 apart).
        for i in 0..<(chars.count - 1) where chars[i] != chars[i + 1] {
            var swapped = chars
            swapped.swapAt(i, i + 1)
            let a = alphabet.firstIndex(of: chars[i])!, b = alphabet.firstIndex(of: chars[i + 1])!
            if a - b == 31 || b - a == 31 { continue }
            #expect(VoucherCode.normalize(String(swapped)) == nil)
        }
    }

    // MARK: The room

    /// A check-in room with three phones (pages 11…13 linked to their devices), two prizes, vouchers on.
    func room(voucherKey: [UInt8]? = HandoverTests.key) throws -> RoomHarness {
        var room = try RoomHarness(config: DrawConfig(pool: .checkin([]), prizes: [Prize(name: "Bike", count: 1), Prize(name: "Hamper", count: 1)]),
                                   voucherKey: voucherKey)
        _ = room.command(.checkin(.open(nil)))
        _ = room.handle(.stored(.success(())))
        for n in 1...3 {
            _ = room.handle(.checkinJoin(CheckinJoin(form: CheckinForm(name: "Person \(n)", fields: []), device: "device-\(n)", code: nil),
                                         caller: UInt64(900 + n)))
            _ = room.handle(.entrantsStored(.success(())))
        }
        _ = room.command(.checkin(.close))
        _ = room.handle(.stored(.success(())))
        room.host()
        for n in 1...3 {
            _ = room.handle(.joined(UInt64(10 + n), remote: "10.0.1.\(n)"))
            _ = room.handle(.deviceLinked(UInt64(10 + n), device: "device-\(n)"))
        }
        return room
    }

    func drawRound(_ room: inout RoomHarness) throws -> (round: RoundRecord, actions: [DrawRoomState.Action]) {
        _ = room.start()
        _ = room.command(.stop)
        var actions = room.handle(.stored(.success(())))
        while room.state.draw.phase != .revealed {
            room.advance(.milliseconds(50))
            actions += room.handle(.timerDue(.motion))
        }
        guard case .round(let round)? = room.state.draw.lastResult?.body else { throw CommandFailure(code: "no round") }
        return (round, actions)
    }

    func handover(_ room: inout RoomHarness, _ code: String, confirm: Bool = false, by: OperatorRef? = nil)
        -> (outcome: Result<CommandReply, CommandFailure>?, actions: [DrawRoomState.Action]) {
        let caller: UInt64 = 555
        let event: DrawRoomState.Event = by.map { .commandBy($0, .handover(HandoverRequest(code: code, confirm: confirm)), seq: nil, client: nil, awaitReveal: false, caller: caller) }
            ?? .command(.handover(HandoverRequest(code: code, confirm: confirm)), seq: nil, client: nil, awaitReveal: false, caller: caller)
        let actions = room.handle(event)
        return (actions.reply(to: caller), actions)
    }

    func errorCode(_ outcome: Result<CommandReply, CommandFailure>?) -> String? {
        if case .failure(let failure)? = outcome { return failure.code }
        return outcome == nil ? nil : "ok"
    }

    /// The page each entry's phone is on.
    func page(of winner: String, in room: RoomHarness) -> UInt64 {
        let device = room.state.checkin.book.entry(id: winner)!.device!
        return UInt64(10 + Int(device.dropFirst("device-".count))!)
    }

    @Test func theWinnersPhoneAloneGetsItsVoucherAndStaffHandThePrizeOverOnce() throws {
        var room = try room()
        let drawn = try drawRound(&room)
        let winner = drawn.round.winners[0].description
        let winnerPage = page(of: winner, in: room)
        let vouchers = drawn.actions.compactMap(\.sent).filter { $0.text.contains(#""type":"voucher""#) }
        #expect(vouchers.map(\.to) == [winnerPage])
        let code = VoucherCode.make(key: Self.key, draw: "ROOM", round: 1, winner: winner)
        #expect(vouchers.first?.text.contains(code) == true)
        // Its own `state` carries it; a viewer's never does.
        #expect(room.state.stateText(for: winnerPage).contains(code))
        #expect(!room.state.stateText(for: nil).contains(code))
        #expect(!room.state.stateText(for: page(of: room.state.checkin.book.activeIDs.first { $0 != winner }!, in: room)).contains(code))

        // Wrong codes change nothing.
        #expect(errorCode(handover(&room, "0000-0001").outcome) == "bad_voucher")
        #expect(errorCode(handover(&room, "0000-0000").outcome) == "unknown_voucher") // well-formed, nobody's
        let typo = String(code.prefix(8)) + (code.last == "1" ? "2" : "1")
        #expect(errorCode(handover(&room, typo).outcome) == "bad_voucher")
        let elsewhere = VoucherCode.make(key: Self.key, draw: "OTHER", round: 1, winner: winner)
        #expect(errorCode(handover(&room, elsewhere).outcome) == "unknown_voucher")

        // A look-up answers whose it is and stores nothing.
        let look = handover(&room, code.lowercased())
        guard case .success(let reply)? = look.outcome else { Issue.record("look-up refused"); return }
        #expect(reply.ack["voucher"]?["winner"]?.stringValue == winner)
        #expect(reply.ack["voucher"]?["prize"]?.stringValue == "Bike")
        #expect(!look.actions.storesSomething)

        // The hand-over: stored first (an audit entry naming Mia, no code), then announced.
        let mia = OperatorRef(id: "op-mia", name: "Mia", role: .checkin)
        let confirm = handover(&room, code, confirm: true, by: mia)
        #expect(confirm.outcome == nil)
        let batch = try #require(confirm.actions.compactMap { if case .store(let batch) = $0 { batch } else { nil } }.first)
        #expect(batch.records.isEmpty)
        #expect(batch.audit?.action == "handover")
        #expect(batch.audit?.detail["operator"]?.stringValue == "Mia")
        #expect(batch.audit?.detail["winner"]?.stringValue == winner)
        #expect(!(batch.audit?.detail.canonicalString.contains(code) ?? true))
        #expect(!confirm.actions.contains { $0.broadcastJSON?["type"]?.stringValue == "handover" })
        let stored = room.handle(.stored(.success(())))
        #expect(errorCode(stored.reply(to: 555)) == "ok")
        let announced = try #require(stored.compactMap(\.broadcastJSON).first { $0["type"]?.stringValue == "handover" })
        #expect(announced["by"]?.stringValue == "Mia" && announced["handedOver"]?.intValue == 1)
        #expect(!DrawWire.text(.handover(announced)).contains(code))
        let update = stored.compactMap(\.sent).filter { $0.text.contains(#""type":"voucher""#) }
        #expect(update.map(\.to) == [winnerPage])
        #expect(update.first?.text.contains(#""state":"handedOver""#) == true)

        // Twice: refused, saying when and by whom.
        let again = handover(&room, code, confirm: true, by: mia)
        #expect(errorCode(again.outcome) == "already_handed_over")
        if case .failure(let failure)? = again.outcome { #expect(failure.detail?["by"]?.stringValue == "Mia") }
        #expect(!again.actions.storesSomething)

        // Read back (the book from the audit entries): the same list.
        let list = room.state.handoverListJSON()
        #expect(list["handedOver"]?.intValue == 1 && list["total"]?.intValue == 1)
        var restored = RoomHarnessRestore.state(from: room.state)
        #expect(restored.handoverListJSON().canonicalString == list.canonicalString)
        restored.checkin.book.handovers = []
        #expect(restored.handoverListJSON()["handedOver"]?.intValue == 0)
    }

    @Test func aVoidedWinnersVoucherNoLongerCounts() throws {
        var room = try room()
        _ = try drawRound(&room)
        let second = try drawRound(&room).round.winners[0]
        let code = VoucherCode.make(key: Self.key, draw: "ROOM", round: 2, winner: second.description)
        _ = room.command(.void(round: 2, winner: second, reason: "not here", audience: nil))
        let stored = room.handle(.stored(.success(())))
        // The voided winner's phone hears it.
        let sent = stored.compactMap(\.sent).filter { $0.to == page(of: second.description, in: room) && $0.text.contains(#""type":"voucher""#) }
        #expect(sent.first?.text.contains(#""state":"void""#) == true)
        #expect(errorCode(handover(&room, code).outcome) == "voucher_void")
        #expect(errorCode(handover(&room, code, confirm: true).outcome) == "voucher_void")
        #expect(room.state.handoverListJSON()["total"]?.intValue == 2) // round 1's and the replacement's
    }

    @Test func aRehearsalRoundGivesNoVoucher() throws {
        var room = try room()
        var config = room.state.draw.config
        config.rehearsal = true
        _ = room.command(.configure(config))
        _ = room.handle(.stored(.success(())))
        #expect(room.state.draw.config.rehearsal)
        let drawn = try drawRound(&room)
        #expect(drawn.round.rehearsal)
        #expect(!drawn.actions.compactMap(\.sent).contains { $0.text.contains(#""type":"voucher""#) })
        #expect(room.state.handoverListJSON()["items"]?.arrayValue?.isEmpty == true)
    }

    @Test func onlyStaffRolesHandOverAndAServerWithoutAKeyHasNoVouchers() throws {
        let request = HostCommand.handover(HandoverRequest(code: "X", confirm: true))
        #expect(OperatorRole.host.permits(request) && OperatorRole.checkin.permits(request))
        #expect(!OperatorRole.presenter.permits(request) && !OperatorRole.observer.permits(request))
        var room = try room(voucherKey: nil)
        _ = try drawRound(&room)
        #expect(errorCode(handover(&room, "0000-0000").outcome) == "handover_unsupported")
        #expect(room.state.handoverListJSON()["items"]?.arrayValue?.isEmpty == true)
        #expect(!room.state.stateText(for: 11).contains("vouchers\":["))
    }
}

/// A room read back: the same draw and book (with its hand-overs), a new state machine.
enum RoomHarnessRestore {
    static func state(from state: DrawRoomState) -> DrawRoomState {
        DrawRoomState(code: state.code, draw: state.draw, settings: state.settings, book: state.checkin.book)
    }
}
