import DrawEngine
import JSON

/// One prize handed over at the prize table (issue 45): who won it (round, check-in entry), when
/// and which operator marked it. Kept in the check-in book; a single box stores each as an audit
/// entry `handover` and reads them back with the book (docs/FAIRNESS.md "Prize hand-over").
public struct Handover: Sendable, Equatable {
    public var round: Int
    public var winner: String
    /// Unix ms.
    public var at: Int64
    /// The operator's name (`owner` for the owner's key) and id.
    public var by: String
    public var byID: String

    public init(round: Int, winner: String, at: Int64, by: String, byID: String) {
        self.round = round
        self.winner = winner
        self.at = at
        self.by = by
        self.byID = byID
    }

    /// From a stored audit entry's detail (`round`, `winner`, `at`, `operator`, `operatorId`).
    public init?(auditDetail detail: JSONValue) {
        guard let round = detail["round"]?.intValue, let winner = detail["winner"]?.stringValue,
              let at = detail["at"]?.intValue else { return nil }
        self.init(round: Int(round), winner: winner, at: at, by: detail["operator"]?.stringValue ?? "owner",
                  byID: detail["operatorId"]?.stringValue ?? "owner")
    }
}

/// Staff's hand-over command (`POST /api/draws/<code>/handover`): look a voucher code up, or
/// with `confirm` mark its prize handed over.
public struct HandoverRequest: Sendable {
    public var code: String
    public var confirm: Bool

    public init(code: String, confirm: Bool) {
        self.code = code
        self.confirm = confirm
    }
}

/// A winner's voucher as the room derives it from the board and the hand-overs.
public struct Voucher: Sendable, Equatable {
    public enum State: String, Sendable { case waiting, handedOver, void }
    public var round: Int
    public var prize: String?
    public var winner: String
    public var code: String
    public var state: State
    public var handover: Handover?
}

extension DrawRoomState {
    /// Vouchers exist in a check-in draw on a server that has a voucher key (a single box); not in
    /// a reverse raffle, whose rounds' `winners` are the people drawn out (FAIRNESS.md §21), nor
    /// for a session of rehearsal rounds (FAIRNESS.md §19: nobody wins a prize in a rehearsal).
    var vouchersOn: Bool {
        isCheckinPool && settings.voucherKey != nil && !draw.config.reverse && draw.sessionRehearsal != true
    }

    /// Every voucher of the session's board, in round order (winners, then those voided), or
    /// only `winner`'s. A prize handed over stays handed over even if its winner is voided later.
    public func vouchers(of winner: String? = nil) -> [Voucher] {
        guard vouchersOn, let key = settings.voucherKey else { return [] }
        var out: [Voucher] = []
        for round in draw.board {
            var ids: [(String, Bool)] = []
            for case .name(let id) in round.winners { ids.append((id, false)) }
            for voided in round.voided { if case .name(let id) = voided.winner { ids.append((id, true)) } }
            for (id, voided) in ids where winner == nil || winner == id {
                let handover = checkin.book.handovers.last { $0.round == round.round && $0.winner == id }
                let state: Voucher.State = handover != nil ? .handedOver : voided ? .void : .waiting
                out.append(Voucher(round: round.round, prize: round.prize, winner: id,
                                   code: VoucherCode.make(key: key, draw: code, round: round.round, winner: id),
                                   state: state, handover: handover))
            }
        }
        return out
    }

    /// A voucher as pages get it; `qr`: with the code's QR as SVG (the winner's phone).
    func voucherJSON(_ voucher: Voucher, qr: Bool = false, host: Bool = false) -> JSONValue {
        var members: [String: JSONValue] = [
            "round": .int(Int64(voucher.round)), "prize": voucher.prize.map { .string($0) } ?? .null,
            "winner": .string(voucher.winner), "code": .string(voucher.code), "state": .string(voucher.state.rawValue),
            "at": voucher.handover.map { .int($0.at) } ?? .null, "by": voucher.handover.map { .string($0.by) } ?? .null,
            "byId": voucher.handover.map { .string($0.byID) } ?? .null,
        ]
        if qr, let render = settings.qrSVG, let svg = render(voucher.code) { members["qr"] = .string(svg) }
        if host { members["name"] = checkin.book.entry(id: voucher.winner)?.name.map { .string($0) } ?? .null }
        return .object(members)
    }

    /// `me.vouchers` of a checked-in phone's `state` (nil: it has none).
    func myVouchersJSON(entry: String) -> JSONValue? {
        let mine = vouchers(of: entry)
        return mine.isEmpty ? nil : .array(mine.map { voucherJSON($0, qr: true) })
    }

    /// The host's and staff's list (`GET /api/draws/<code>/handovers`): every voucher with its
    /// winner's name, and how many of them are handed over.
    public func handoverListJSON() -> JSONValue {
        let all = vouchers()
        return .object([
            "enabled": .bool(vouchersOn),
            "handedOver": .int(Int64(all.filter { $0.state == .handedOver }.count)),
            // Void vouchers are no prize to hand over (one handed over before its void counts as handed over).
            "total": .int(Int64(all.filter { $0.state != .void }.count)),
            "items": .array(all.map { voucherJSON($0, host: true) }),
        ])
    }

    /// Each connected phone holding a voucher hears its vouchers again (after a reveal, a void,
    /// a pass or a hand-over): `{"type":"voucher","vouchers":[…]}`, to that phone only.
    func sendVouchers(_ actions: inout [Action]) {
        guard vouchersOn else { return }
        let ids = Set(vouchers().map(\.winner))
        guard !ids.isEmpty else { return }
        for id in members.keys {
            guard let device = checkin.device(ofMember: id), let entry = checkin.book.entry(device: device),
                  ids.contains(entry.id), let list = myVouchersJSON(entry: entry.id) else { continue }
            actions.append(.send(.voucher(.object(["type": .string("voucher"), "vouchers": list])), to: id))
        }
    }

    /// Runs a hand-over command: a look-up answers at once; a hand-over is stored (an audit
    /// entry) before it is announced.
    mutating func runHandover(_ request: HandoverRequest, job: Job, at time: Time, _ actions: inout [Action]) {
        func refuse(_ code: String, _ detail: JSONValue? = nil) {
            actions.append(.count(.refusedCommands))
            deliver(.failure(CommandFailure(code: code, detail: detail)), for: job, &actions)
        }
        guard isCheckinPool else { return refuse("not_checkin") }
        guard settings.voucherKey != nil else { return refuse("handover_unsupported") }
        guard let code = VoucherCode.normalize(request.code) else { return refuse("bad_voucher") }
        guard let voucher = vouchers().last(where: { $0.code == code }) else { return refuse("unknown_voucher") }
        let shown = voucherJSON(voucher, host: true)
        switch voucher.state {
        case .handedOver: return refuse("already_handed_over", shown)
        case .void: return refuse("voucher_void", shown)
        case .waiting: break
        }
        guard request.confirm else { return succeed(job, CommandReply(ack: ack(job, ["voucher": shown])), &actions) }
        let by = job.by ?? .owner
        let handover = Handover(round: voucher.round, winner: voucher.winner, at: time.unixMilliseconds, by: by.name, byID: by.id)
        // The audit entry names the operator (`stamped`); never the code (a bearer secret).
        let entry = AuditEntry(actor: "host", action: "handover", detail: .object([
            "round": .int(Int64(voucher.round)), "winner": .string(voucher.winner),
            "prize": voucher.prize.map { .string($0) } ?? .null, "at": .int(handover.at)]))
        write(RecordBatch(command: "handover", records: [], audit: entry), job: job, candidate: draw, then: .handover(handover), &actions)
    }

    /// The hand-over is stored: the book keeps it, the staff hear the voucher, every page the
    /// count (no code, no name), the winner's phone its voucher.
    mutating func handoverStored(_ handover: Handover, job: Job, _ actions: inout [Action]) {
        checkin.book.handovers.append(handover)
        snapshots = [:]
        let voucher = vouchers(of: handover.winner).last { $0.round == handover.round }
        succeed(job, CommandReply(ack: ack(job, ["voucher": voucher.map { voucherJSON($0, host: true) } ?? .null])), &actions)
        let all = vouchers()
        actions.append(.announce(.handover(.object([
            "type": .string("handover"), "round": .int(Int64(handover.round)), "winner": .string(handover.winner),
            "at": .int(handover.at), "by": .string(handover.by),
            "handedOver": .int(Int64(all.filter { $0.state == .handedOver }.count)),
        ]))))
        sendVouchers(&actions)
    }
}
