import DrawEngine
import JSON

/// Claims (issue 26; docs/PROTOCOL.md "Claims", docs/FAIRNESS.md §15): in a check-in draw with a
/// `claim` setting, each winner's window opens at the reveal; the phone claims with its device
/// cookie; when a window ends unclaimed the room passes the win to the round's next alternate
/// (a `pass` record, stored before it is announced) and opens the alternate's window. Time comes
/// in as a value (`Time`), like everything in `DrawRoomState`. Claims themselves live in memory
/// only: a restart closes open windows without passing anyone.
public struct ClaimBook: Sendable {
    enum Status: String, Sendable {
        case open, claimed, passed
    }

    struct Item {
        var winner: String
        var status: Status
        var deadline: ContinuousClock.Instant
        /// The deadline on the server's wall clock (Unix ms), for pages and the log.
        var deadlineAt: Int64
        /// For a passed item: the alternate the win went to (nil: none left).
        var to: String?
    }

    var round: Int?
    var seconds = 30
    var items: [Item] = []
    /// A pass is queued or being stored: the timer does not queue another meanwhile.
    var passing = false

    var isOpen: Bool { items.contains { $0.status == .open } }

    /// Open windows that ended at `now`, in the order of the round's winners (and alternates after).
    func expired(at now: ContinuousClock.Instant) -> [Item] {
        items.filter { $0.status == .open && $0.deadline <= now }
    }

    var nextDeadline: ContinuousClock.Instant? {
        items.filter { $0.status == .open }.map(\.deadline).min()
    }
}

extension HostCommand {
    /// Commands that could hand a win to someone else while claim windows are open.
    var waitsForClaims: Bool {
        switch self {
        case .start, .clear, .wipeRehearsal, .void: true
        default: false
        }
    }
}

extension DrawRoomState {
    /// At the reveal of a claim draw's round (never a replacement): every winner's window opens.
    mutating func openClaims(at time: Time, _ actions: inout [Action]) {
        guard isCheckinPool, let claim = draw.config.claim, case .round(let round)? = draw.lastResult?.body,
              round.replaces == nil, round.alternates != nil else { return }
        claims = ClaimBook(round: round.round, seconds: claim.seconds)
        for case .name(let id) in round.winners { claims.items.append(window(for: id, at: time)) }
        scheduleClaims(&actions)
        broadcastClaims(at: time, &actions)
    }

    private func window(for id: String, at time: Time) -> ClaimBook.Item {
        ClaimBook.Item(winner: id, status: .open, deadline: time.instant + .seconds(claims.seconds),
                       deadlineAt: time.unixMilliseconds + Int64(claims.seconds) * 1000, to: nil)
    }

    private func scheduleClaims(_ actions: inout [Action]) {
        if let due = claims.nextDeadline { actions.append(.schedule(.claims, at: due)) }
    }

    /// A phone taps "claim" (`POST /api/draws/<code>/claim`, its device cookie hashed as `device`).
    /// Idempotent: a second claim of the same win answers the same. Refused after the deadline.
    mutating func claim(device: String, caller: UInt64, at time: Time, _ actions: inout [Action]) {
        func refuse(_ code: String) { actions.append(.reply(caller: caller, .failure(CommandFailure(code: code)))) }
        guard isCheckinPool else { return refuse("not_checkin") }
        guard let entry = checkin.book.entry(device: device), let round = claims.round,
              let index = claims.items.lastIndex(where: { $0.winner == entry.id }) else { return refuse("not_winner") }
        var item = claims.items[index]
        switch item.status {
        case .passed:
            return refuse("claim_closed")
        case .open:
            guard time.instant < item.deadline else { return refuse("claim_closed") }
            item.status = .claimed
            claims.items[index] = item
            broadcastClaims(at: time, &actions)
        case .claimed:
            break
        }
        actions.append(.reply(caller: caller, .success(CommandReply(ack: .object([
            "claimed": .bool(true), "round": .int(Int64(round)), "winner": .string(entry.id)])))))
    }

    /// The claims timer: ended windows are passed on by a job in the command queue (so it waits
    /// for any write in flight, and no command runs between the pass and its record).
    mutating func claimsDue(at time: Time, using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        guard !claims.passing else { return }
        guard !claims.expired(at: time.instant).isEmpty else { return scheduleClaims(&actions) }
        claims.passing = true
        enqueueServerJob(.passUnclaimed, at: time, using: &random, &actions)
    }

    /// Runs the queued pass: one `pass` record per ended window, in order.
    func passPlan(at time: Time) throws(DrawError) -> (records: [DrawRecord], candidate: Draw, passes: [(String, String?)]) {
        guard let round = claims.round else { throw .unknownRound }
        var candidate = draw
        var records = [DrawRecord]()
        var passes = [(String, String?)]()
        let reason = ClaimSetting(seconds: claims.seconds).reason
        for item in claims.expired(at: time.instant) {
            let alternate = candidate.nextAlternate(round: round)
            records.append(try candidate.pass(round: round, winner: .name(item.winner), reason: reason, at: time.unixMilliseconds))
            passes.append((item.winner, alternate.map(\.description)))
        }
        return (records, candidate, passes)
    }

    /// After the passes are stored: each alternate's window opens now; every page hears the passes.
    mutating func passesStored(_ passes: [(String, String?)], at time: Time, _ actions: inout [Action]) {
        claims.passing = false
        let reason = ClaimSetting(seconds: claims.seconds).reason
        for (winner, alternate) in passes {
            if let index = claims.items.firstIndex(where: { $0.winner == winner && $0.status == .open }) {
                claims.items[index].status = .passed
                claims.items[index].to = alternate
            }
            if let alternate { claims.items.append(window(for: alternate, at: time)) }
            var message: [String: JSONValue] = ["type": .string("pass"), "round": .int(Int64(claims.round ?? 0)),
                                                "winner": .string(winner), "alternate": alternate.map { .string($0) } ?? .null,
                                                "reason": .string(reason)]
            if checkin.book.settings.publicNames, let alternate, let name = checkin.book.entry(id: alternate)?.name { message["name"] = .string(publicName(name)) }
            actions.append(.announce(.pass(JSONValue.object(message))))
        }
        scheduleClaims(&actions)
        broadcastClaims(at: time, &actions)
        if let commit = draw.commit { actions.append(.announce(.commit(commit))) }
    }

    /// A pass could not be stored: nothing was announced; try again in a second.
    mutating func passFailed(at time: Time, _ actions: inout [Action]) {
        claims.passing = false
        actions.append(.schedule(.claims, at: time.instant + .seconds(1)))
    }

    /// `state.claims` and the `claims` message: the latest claim round's windows. `left`: the
    /// milliseconds still open when this was built (pages count down from their receipt).
    func claimsJSON(at time: Time?) -> JSONValue {
        guard let round = claims.round else { return .null }
        return .object([
            "round": .int(Int64(round)), "seconds": .int(Int64(claims.seconds)), "open": .bool(claims.isOpen),
            "items": .array(claims.items.map { item in
                var members: [String: JSONValue] = ["winner": .string(item.winner), "status": .string(item.status.rawValue),
                                                    "deadline": .int(item.deadlineAt)]
                if item.status == .open, let time {
                    members["left"] = .int(max(0, Int64((item.deadline - time.instant) / .milliseconds(1))))
                }
                if item.status == .passed { members["to"] = item.to.map { .string($0) } ?? .null }
                if checkin.book.settings.publicNames, let name = checkin.book.entry(id: item.winner)?.name { members["name"] = .string(publicName(name)) }
                return .object(members)
            }),
        ])
    }

    func broadcastClaims(at time: Time, _ actions: inout [Action]) {
        guard case .object(var members) = claimsJSON(at: time) else { return }
        members["type"] = .string("claims")
        actions.append(.announce(.claims(JSONValue.object(members))))
    }
}
