import DrawEngine
import JSON

extension DrawRoomState {
    public var isCheckinPool: Bool {
        if case .checkin = draw.config.pool { return true }
        return false
    }

    /// The settings as pages see them: a check-in pool is summarised (its size), never listed:
    /// the public ids are fetched separately (`GET /api/draws/<code>/entries/pool`).
    public static func publicConfigText(_ config: DrawConfig) -> String {
        config.publicText
    }

    // MARK: Joins (CheckinState)

    public mutating func checkinJoin(_ join: CheckinJoin, caller: UInt64, at time: Time,
                              using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        guard isCheckinPool else { return actions.append(.reply(caller: caller, .failure(CommandFailure(code: "not_checkin")))) }
        guard !archived else { return actions.append(.reply(caller: caller, .failure(CommandFailure(code: "draw_archived")))) }
        checkin.join(join, caller: caller, at: time, using: &random, &actions)
        flushJoins(&actions)
    }

    /// Stores the waiting joins in one transaction, unless a write is in flight.
    public mutating func flushJoins(_ actions: inout [Action]) {
        guard !isBusy, let batch = checkin.nextBatch() else { return }
        actions.append(.storeEntrants(batch))
    }

    public mutating func entrantsStored(_ result: Result<Void, StoreFailure>, at time: Time,
                                 using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        checkin.stored(result, code: code, at: time, &actions)
        pump(at: time, using: &random, &actions)
        flushJoins(&actions)
    }

    // MARK: Host commands

    public struct CheckinPlan {
        /// The write without the pool's settings (`config`), which `pool` works out.
        public var batch: RecordBatch
        public var change: CheckinChange
        /// The check-in pool as the command leaves it, to lock (in place, or off the loop when
        /// large: closing 100,000 entries); nil when the pool stays as it is.
        public var pool: ConfigurePlan?
    }

    /// What a host's check-in command writes, or why it is refused.
    public func checkinPlan(_ command: CheckinCommand, at time: Time) -> Result<CheckinPlan, CommandFailure> {
        guard draw.phase == .idle || draw.phase == .revealed else { return .failure(CommandFailure(code: "wrong_phase")) }
        // Retention also reaches entrants a draw kept after its host switched to another pool.
        let expiring = if case .expire = command { true } else { false }
        guard isCheckinPool || expiring else { return .failure(CommandFailure(code: "not_checkin")) }
        var settings = checkin.book.settings
        var ids = checkin.book.activeIDs
        let change: CheckinChange
        let write: CheckinWrite
        var audit: JSONValue = .object([:])
        switch command {
        case .open(let new):
            settings = new ?? settings
            settings.open = true
            change = .settings(settings)
            write = .settings(settings.json.canonicalString)
            audit = .object(["fields": .int(Int64(settings.fields.count)), "presence": .bool(settings.presence),
                             "publicNames": .bool(settings.publicNames)])
        case .close:
            settings.open = false
            change = .settings(settings)
            write = .settings(settings.json.canonicalString)
            audit = .object(["entrants": .int(Int64(ids.count))])
        case .remove(let id, let raw):
            guard let entry = checkin.book.entry(id: id), entry.isActive else { return .failure(CommandFailure(code: "unknown_entrant")) }
            // Trimmed and NFC-normalised by the shell that read it (CheckinText.swift).
            let reason = raw
            guard (1...DrawLimits.maxReasonLength).contains(reason.count), !CheckinForm.hasControl(reason) else {
                return .failure(CommandFailure(code: "bad_reason"))
            }
            ids.removeAll { $0 == id }
            change = .remove(id: id, reason: reason)
            write = .remove(id: id, reason: reason, settings: settings.json.canonicalString)
            audit = .object(["id": .string(id), "reason": .string(reason)])
        case .erase, .expire:
            settings.open = false
            ids = []
            change = .erase(settings)
            write = .erase(settings: settings.json.canonicalString)
            audit = .object(["entrants": .int(Int64(checkin.book.entries.count))])
            if case .expire(let days) = command, case .object(var members) = audit {
                members["days"] = .int(Int64(days))
                audit = .object(members)
            }
        }
        var pool: ConfigurePlan? = nil
        // While entries are open the pool is not locked yet: Start is refused until they close.
        if isCheckinPool, !settings.open, draw.config.pool != .checkin(ids) {
            var config = draw.config
            config.pool = .checkin(ids)
            if !config.exclude.isEmpty {
                let active = Set(ids)
                config.exclude = config.exclude.filter { active.contains($0.description) }
            }
            // As a configure does: the lock published now already leaves out the linked draws' winners.
            pool = ConfigurePlan(base: draw, config: config,
                                 pastWinners: config.excludeWinnersOf.compactMap { links.winners(EntrantList.trim($0.code)) })
        }
        // The retention sweep is the server's own act: no operator to name.
        let actor = expiring ? "system" : "host"
        let entry = AuditEntry(actor: actor, action: command.name, detail: audit)
        return .success(CheckinPlan(batch: RecordBatch(command: command.name, records: [], audit: entry, checkin: write),
                                    change: change, pool: pool))
    }

    /// A check-in command's write once its pool is locked (`outcome`, worked out in place or off
    /// the loop; nil when the pool stays), or its refusal when the pool cannot be locked.
    mutating func checkinPlanned(_ job: Job, _ plan: CheckinPlan, pool outcome: ConfigureOutcome?, _ actions: inout [Action]) {
        var batch = plan.batch
        var candidate = draw
        var configText: String? = nil
        switch outcome?.result {
        case .failure(let failure)?:
            actions.append(.count(.refusedCommands))
            deliver(.failure(failure), for: job, &actions)
            return
        case .success(let made)?:
            candidate = made.candidate
            batch.config = made.storedText
            configText = made.publicText
        case nil:
            break
        }
        write(batch, job: job, candidate: candidate, then: .checkin(plan.change, configText: configText), &actions)
    }

    // MARK: Pages

    /// Names of the winners `state` lists that pages may show (all of them for the host): the
    /// bounded board's and the latest result's; pages read the rest with the winners' pages.
    public func winnerNames(forHost host: Bool) -> [String: JSONValue] {
        guard hasEntrantNames else { return [:] }
        var winners = BoardSummary.listed(visibleBoard).rounds.flatMap {
            $0.winners.prefix(BoardSummary.winnersPerRound) + $0.voided.map(\.winner)
        }
        // While the slow-down runs, the latest result is not announced yet.
        if draw.phase != .stopping, case .round(let round)? = draw.lastResult?.body { winners += round.winners.prefix(BoardSummary.winnersPerRound) }
        return entrantNames(winners, host: host)
    }

    /// The `checkin` part of `state` for member `id`: status, the form, the board winners' names
    /// (when the host allows), and `me`, the entry this page's device made. `names`: those names
    /// when the caller already has them (one computation for many pages).
    public func checkinState(host: Bool, device: String?, names: JSONValue? = nil) -> JSONValue {
        guard isCheckinPool else { return .null }
        var me: JSONValue = .null
        if let device, let entry = checkin.book.entry(device: device) {
            // `wins`: the board's rounds this entry wins, so a winner past the listed first ones knows.
            // The phone's own name, masked too in a private draw: a frame may be seen over a shoulder or forwarded.
            me = .object(["id": .string(entry.id), "name": entry.name.map { .string(host ? $0 : publicName($0)) } ?? .null,
                          "removed": entry.removedReason.map { .string($0) } ?? .null,
                          "wins": .array(roundsWon(by: entry.id).map { .int(Int64($0)) }),
                          // The phone's prize vouchers (issue 45): this phone's own frame only.
                          "vouchers": myVouchersJSON(entry: entry.id) ?? .null])
        }
        return .object(["open": .bool(checkin.book.settings.open), "count": .int(Int64(checkin.book.activeCount)),
                        "fields": .array(checkin.book.settings.fields.map(\.json)), "presence": .bool(checkin.book.settings.presence),
                        "publicNames": .bool(checkin.book.settings.publicNames), "names": names ?? .object(winnerNames(forHost: host)),
                        "me": me])
    }

    /// After a reveal or a replacement: the winners' names for every page (when allowed) and,
    /// for hosts, whether each winner's phone is connected.
    public func announceCheckinWinners(_ actions: inout [Action]) {
        guard hasEntrantNames, case .round(let round)? = draw.lastResult?.body else { return }
        let ids = round.winners.compactMap { if case .name(let id) = $0 { id } else { nil } }
        var names = [String: JSONValue]()
        for id in ids { if let name = entrantName(id, host: false) { names[id] = .string(name) } }
        actions.append(.announce(.winners(round: round.round, names: names)))
        guard let presence = winnerPresenceMessage else { return }
        for (member, info) in members where info.isHost { actions.append(.send(.winnerPresence(presence), to: member)) }
    }

    /// For hosts: the latest result's winners, their names and whether each one's phone is connected.
    public var winnerPresenceMessage: JSONValue? {
        guard isCheckinPool, case .round(let round)? = draw.lastResult?.body else { return nil }
        let ids = round.winners.compactMap { if case .name(let id) = $0 { id } else { nil } }
        return .object(["type": .string("winnerPresence"), "round": .int(Int64(round.round)),
                        "winners": .array(ids.map { id in
                            .object(["id": .string(id), "name": checkin.book.entry(id: id)?.name.map { .string($0) } ?? .null,
                                     "connected": .bool(checkin.isConnected(entry: id))])
                        })])
    }
}
