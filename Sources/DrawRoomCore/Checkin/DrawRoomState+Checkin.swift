import DrawEngine
import JSON
import Server
import Storage

/// What the store writes for check-in, in the same transaction as the batch's records.
enum CheckinWrite: Sendable {
    case settings(String)
    case join([EntrantInsert])
    case remove(id: String, reason: String, settings: String)
    case erase(settings: String)
}

struct EntrantInsert: Sendable {
    var row: EntrantRow
    var uniques: [UniqueValue]
}

struct UniqueValue: Sendable {
    var field: String
    var value: String
}

/// A phone's join, as the REST handler read it: the normalised form, the device hash and the
/// presence code typed (if any).
struct CheckinJoin: Sendable {
    var form: CheckinForm
    var device: String
    var code: String?
}

/// A check-in change applied once its write is stored.
enum CheckinChange: Sendable {
    case settings(CheckinSettings)
    case remove(id: String, reason: String)
    case erase(CheckinSettings)
}

/// The room's check-in bookkeeping beside the book: joins waiting and in flight, the
/// throttled count, and which pages belong to which device (for "is the winner's phone here").
struct CheckinFlow {
    var queue: [(entry: CheckinEntry, caller: UInt64)] = []
    var inFlight: [(entry: CheckinEntry, caller: UInt64)] = []
    var writing = false
    var timerArmed = false
    var announced: (count: Int, open: Bool)? = nil
    var memberDevice: [UInt64: String] = [:]
    var deviceMembers: [String: Int] = [:]
    /// Cluster owner: pages on other instances ("instance/page") → their device (counted in `deviceMembers`).
    var remoteDevices: [String: String] = [:]
    /// Single-box: a secret made at start-up; cluster mode: derived from the cluster key (ClusterDrawNode+Checkin).
    var presence = PresenceCodes()
    /// Joins one transaction stores at most.
    static let batchLimit = 512
}

extension DrawRoomState {
    var isCheckinPool: Bool {
        if case .checkin = draw.config.pool { return true }
        return false
    }

    /// The settings as pages see them: a check-in pool is summarised (its size), never listed:
    /// the public ids are fetched separately (`GET /api/draws/<code>/entries/pool`).
    static func publicConfigText(_ config: DrawConfig) -> String {
        DrawPersistence.encodePublic(config)
    }

    static func newEntrantID(using random: inout some RandomNumberGenerator) -> String {
        String(decoding: (0..<8).map { _ in DrawKeys.codeAlphabet.randomElement(using: &random)! }, as: UTF8.self)
    }

    // MARK: Joins

    mutating func checkinJoin(_ join: CheckinJoin, caller: UInt64, at time: Time,
                              using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        func refuse(_ code: String, _ detail: JSONValue? = nil) {
            actions.append(.reply(caller: caller, .failure(CommandFailure(code: code, detail: detail))))
        }
        guard isCheckinPool else { return refuse("not_checkin") }
        guard !archived else { return refuse("draw_archived") }
        guard checkin.settings.open else { return refuse("entries_closed") }
        if checkin.settings.presence {
            guard let code = join.code, checkinFlow.presence.accepts(code, at: time.unixMilliseconds) else { return refuse("bad_code") }
        }
        if let refusal = checkin.refusal(join.form, device: join.device) {
            if refusal.code == "already_joined" {
                return refuse(refusal.code, checkin.entry(device: join.device).map { .object(["entry": $0.json]) })
            }
            return refuse(refusal.code, refusal.field.map { .object(["field": .string($0)]) })
        }
        guard checkinFlow.queue.count + checkinFlow.inFlight.count < CheckinBook.maxQueued else { return refuse("busy") }
        var id = Self.newEntrantID(using: &random)
        while !checkin.isFree(id) { id = Self.newEntrantID(using: &random) }
        var fields = [String: String]()
        for field in join.form.fields { fields[field.key] = field.value }
        let entry = CheckinEntry(id: id, seq: checkin.nextSeq, name: join.form.name, fields: fields, device: join.device,
                                 joinedAt: time.unixMilliseconds)
        checkin.reserve(entry)
        checkinFlow.queue.append((entry, caller))
        flushJoins(&actions)
    }

    /// Stores the waiting joins in one transaction, unless a write is in flight.
    mutating func flushJoins(_ actions: inout [Action]) {
        guard !isBusy, !checkinFlow.queue.isEmpty else { return }
        let batch = Array(checkinFlow.queue.prefix(CheckinFlow.batchLimit))
        checkinFlow.queue.removeFirst(batch.count)
        checkinFlow.inFlight = batch
        checkinFlow.writing = true
        let inserts = batch.map { item in
            EntrantInsert(row: Self.row(item.entry, code: code), uniques: checkin.uniqueSlots(item.entry).map { slot in
                let parts = slot.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
                return UniqueValue(field: String(parts[0]), value: String(parts[1]))
            })
        }
        actions.append(.storeEntrants(RecordBatch(command: "join", records: [], checkin: .join(inserts))))
    }

    static func row(_ entry: CheckinEntry, code: String) -> EntrantRow {
        EntrantRow(drawCode: code, publicID: entry.id, seq: entry.seq, name: entry.name,
                   fieldsJSON: JSONValue.object(entry.fields.mapValues { .string($0) }).canonicalString,
                   deviceHash: entry.device, joinedAt: Double(entry.joinedAt) / 1000)
    }

    mutating func entrantsStored(_ result: Result<Void, StoreFailure>, at time: Time,
                                 using random: inout some RandomNumberGenerator, _ actions: inout [Action]) {
        let batch = checkinFlow.inFlight
        checkinFlow.inFlight = []
        checkinFlow.writing = false
        switch result {
        case .success:
            for item in batch {
                checkin.settle(item.entry, stored: true)
                let ack: JSONValue = .object(["type": .string("ack"), "command": .string("join"), "entry": item.entry.json])
                actions.append(.reply(caller: item.caller, .success(CommandReply(ack: ack))))
            }
            scheduleEntrantsAnnouncement(at: time, &actions)
        case .failure(let failure):
            actions.append(.count(.storageFailures))
            actions.append(.logError("storing \(batch.count) check-ins of draw \(code) failed: \(failure.detail)"))
            for item in batch {
                checkin.settle(item.entry, stored: false)
                actions.append(.reply(caller: item.caller, .failure(CommandFailure(code: failure.code))))
            }
        }
        pump(at: time, using: &random, &actions)
        flushJoins(&actions)
    }

    // MARK: Host commands

    struct CheckinPlan {
        var batch: RecordBatch
        var candidate: Draw
        var change: CheckinChange
        /// The new public settings text when the pool changed.
        var configText: String?
    }

    /// What a host's check-in command writes, or why it is refused.
    func checkinPlan(_ command: CheckinCommand, at time: Time) -> Result<CheckinPlan, CommandFailure> {
        guard draw.phase == .idle || draw.phase == .revealed else { return .failure(CommandFailure(code: "wrong_phase")) }
        guard isCheckinPool else { return .failure(CommandFailure(code: "not_checkin")) }
        var settings = checkin.settings
        var ids = checkin.activeIDs
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
            guard let entry = checkin.entry(id: id), entry.isActive else { return .failure(CommandFailure(code: "unknown_entrant")) }
            let reason = CheckinForm.clean(raw)
            guard (1...DrawLimits.maxReasonLength).contains(reason.count), !CheckinForm.hasControl(reason) else {
                return .failure(CommandFailure(code: "bad_reason"))
            }
            ids.removeAll { $0 == id }
            change = .remove(id: id, reason: reason)
            write = .remove(id: id, reason: reason, settings: settings.json.canonicalString)
            audit = .object(["id": .string(id), "reason": .string(reason)])
        case .erase:
            settings.open = false
            ids = []
            change = .erase(settings)
            write = .erase(settings: settings.json.canonicalString)
            audit = .object(["entrants": .int(Int64(checkin.entries.count))])
        }
        var candidate = draw
        var configJSON: String? = nil
        var publicText: String? = nil
        // While entries are open the pool is not locked yet: Start is refused until they close.
        if !settings.open, draw.config.pool != .checkin(ids) {
            var config = draw.config
            config.pool = .checkin(ids)
            config.exclude = config.exclude.filter { ids.contains($0.description) }
            do { try candidate.configure(config) } catch { return .failure(CommandFailure(code: error.code)) }
            configJSON = DrawPersistence.encode(candidate.config)
            publicText = Self.publicConfigText(candidate.config)
        }
        let entry = AuditEntry(actor: "host", action: command.name, detail: audit)
        return .success(CheckinPlan(batch: RecordBatch(command: command.name, records: [], config: configJSON, audit: entry,
                                                      checkin: write),
                                    candidate: candidate, change: change, configText: publicText))
    }

    /// A host's check-in change is stored: apply it to the book. Closing refuses the joins still waiting.
    mutating func applyCheckin(_ change: CheckinChange, _ actions: inout [Action]) {
        switch change {
        case .settings(let settings):
            checkin.settings = settings
        case .remove(let id, let reason):
            checkin.remove(id: id, reason: reason)
        case .erase(let settings):
            checkin.settings = settings
            checkin.erase()
        }
        if !checkin.settings.open {
            for item in checkinFlow.queue {
                checkin.settle(item.entry, stored: false)
                actions.append(.reply(caller: item.caller, .failure(CommandFailure(code: "entries_closed"))))
            }
            checkinFlow.queue = []
        }
    }

    // MARK: Pages

    /// `{"type":"entrants","count":n,"open":b}`: how many entrants the pool holds now.
    var entrantsMessage: JSONValue {
        .object(["type": .string("entrants"), "count": .int(Int64(checkin.activeCount)), "open": .bool(checkin.settings.open)])
    }

    /// The count with the settings the join form needs, after a host's check-in command.
    var entrantsSettingsMessage: JSONValue {
        guard case .object(var members) = entrantsMessage else { return entrantsMessage }
        members["fields"] = .array(checkin.settings.fields.map(\.json))
        members["presence"] = .bool(checkin.settings.presence)
        members["publicNames"] = .bool(checkin.settings.publicNames)
        return .object(members)
    }

    mutating func scheduleEntrantsAnnouncement(at time: Time, _ actions: inout [Action]) {
        guard !checkinFlow.timerArmed else { return }
        checkinFlow.timerArmed = true
        actions.append(.schedule(.entrants, at: time.instant + .seconds(1)))
    }

    /// At most one `entrants` message a second, and only when the count or the status changed.
    mutating func entrantsDue(at time: Time, _ actions: inout [Action]) {
        guard checkinFlow.timerArmed else { return }
        checkinFlow.timerArmed = false
        let now = (checkin.activeCount, checkin.settings.open)
        guard checkinFlow.announced.map({ $0 != now }) ?? true else { return }
        checkinFlow.announced = now
        actions.append(.broadcast(entrantsMessage.canonicalString, stream: .latestValue))
        scheduleEntrantsAnnouncement(at: time, &actions)
    }

    mutating func deviceLinked(_ id: UInt64, device: String) {
        guard checkinFlow.memberDevice[id] == nil else { return }
        checkinFlow.memberDevice[id] = device
        checkinFlow.deviceMembers[device, default: 0] += 1
    }

    mutating func checkinMemberLeft(_ id: UInt64) {
        guard let device = checkinFlow.memberDevice.removeValue(forKey: id) else { return }
        let left = (checkinFlow.deviceMembers[device] ?? 1) - 1
        checkinFlow.deviceMembers[device] = left > 0 ? left : nil
    }

    /// Cluster owner: a page on another instance belongs to `device` (nil: it left).
    mutating func remoteDevice(_ page: String, device: String?) {
        if let old = checkinFlow.remoteDevices.removeValue(forKey: page) {
            let left = (checkinFlow.deviceMembers[old] ?? 1) - 1
            checkinFlow.deviceMembers[old] = left > 0 ? left : nil
        }
        guard let device else { return }
        checkinFlow.remoteDevices[page] = device
        checkinFlow.deviceMembers[device, default: 0] += 1
    }

    /// Cluster owner: forgets the pages of instances not in `live` (gone quiet: dead or cut off;
    /// their pages reconnect elsewhere and are reported again from there).
    mutating func pruneRemoteDevices(live: Set<String>) {
        for page in checkinFlow.remoteDevices.keys where !live.contains(String(page.prefix { $0 != "/" })) {
            remoteDevice(page, device: nil)
        }
    }

    /// Whether the phone that made entry `id` has a page open in the room (cluster: on any instance).
    func isConnected(entry id: String) -> Bool {
        guard let device = checkin.entry(id: id)?.device else { return false }
        return checkinFlow.deviceMembers[device] != nil
    }

    /// Names of the winners `state` lists that pages may show (all of them for the host): the
    /// bounded board's and the latest result's; pages read the rest with the winners' pages.
    func winnerNames(forHost host: Bool) -> [String: JSONValue] {
        guard isCheckinPool, host || checkin.settings.publicNames else { return [:] }
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
    func checkinState(host: Bool, device: String?, names: JSONValue? = nil) -> JSONValue {
        guard isCheckinPool else { return .null }
        var me: JSONValue = .null
        if let device, let entry = checkin.entry(device: device) {
            // `wins`: the board's rounds this entry wins, so a winner past the listed first ones knows.
            me = .object(["id": .string(entry.id), "name": entry.name.map { .string($0) } ?? .null,
                          "removed": entry.removedReason.map { .string($0) } ?? .null,
                          "wins": .array(roundsWon(by: entry.id).map { .int(Int64($0)) })])
        }
        return .object(["open": .bool(checkin.settings.open), "count": .int(Int64(checkin.activeCount)),
                        "fields": .array(checkin.settings.fields.map(\.json)), "presence": .bool(checkin.settings.presence),
                        "publicNames": .bool(checkin.settings.publicNames), "names": names ?? .object(winnerNames(forHost: host)),
                        "me": me])
    }

    /// After a reveal or a replacement: the winners' names for every page (when allowed) and,
    /// for hosts, whether each winner's phone is connected.
    func announceCheckinWinners(_ actions: inout [Action]) {
        guard isCheckinPool, case .round(let round)? = draw.lastResult?.body else { return }
        let ids = round.winners.compactMap { if case .name(let id) = $0 { id } else { nil } }
        var names = [String: JSONValue]()
        if checkin.settings.publicNames {
            for id in ids { if let name = checkin.entry(id: id)?.name { names[id] = .string(name) } }
        }
        actions.append(.broadcast(JSONValue.object(["type": .string("winners"), "round": .int(Int64(round.round)),
                                                    "names": .object(names)]).canonicalString, stream: .reliable, kind: .checkinWinners))
        guard let presence = winnerPresenceMessage else { return }
        let text = presence.canonicalString
        for (member, info) in members where info.isHost { actions.append(.send(text, to: member)) }
    }

    /// For hosts: the latest result's winners, their names and whether each one's phone is connected.
    var winnerPresenceMessage: JSONValue? {
        guard isCheckinPool, case .round(let round)? = draw.lastResult?.body else { return nil }
        let ids = round.winners.compactMap { if case .name(let id) = $0 { id } else { nil } }
        return .object(["type": .string("winnerPresence"), "round": .int(Int64(round.round)),
                        "winners": .array(ids.map { id in
                            .object(["id": .string(id), "name": checkin.entry(id: id)?.name.map { .string($0) } ?? .null,
                                     "connected": .bool(isConnected(entry: id))])
                        })])
    }
}
