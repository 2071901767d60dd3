import DrawEngine
import JSON

/// What the store writes for check-in, in the same transaction as the batch's records.
public enum CheckinWrite: Sendable {
    case settings(String)
    case join([EntrantInsert])
    case remove(id: String, reason: String, settings: String)
    case erase(settings: String)
}

/// A new entrant as the store keeps it (SQLite's `EntrantRow`, the cluster's check-in hash: the
/// shells map it) and the unique values it takes.
public struct EntrantInsert: Sendable {
    public var entry: CheckinEntry
    public var uniques: [UniqueValue]

    public init(entry: CheckinEntry, uniques: [UniqueValue]) {
        self.entry = entry
        self.uniques = uniques
    }
}

public struct UniqueValue: Sendable {
    public var field: String
    public var value: String

    public init(field: String, value: String) {
        self.field = field
        self.value = value
    }
}

/// A phone's join, as the REST handler read it: the normalised form, the device hash and the
/// presence code typed (if any).
public struct CheckinJoin: Sendable {
    public var form: CheckinForm
    public var device: String
    public var code: String?

    public init(form: CheckinForm, device: String, code: String? = nil) {
        self.form = form
        self.device = device
        self.code = code
    }
}

/// A check-in change applied once its write is stored.
public enum CheckinChange: Sendable {
    case settings(CheckinSettings)
    case remove(id: String, reason: String)
    case erase(CheckinSettings)
}

/// The room's check-in sub-machine (#14), composed into `DrawRoomState` (its `checkin`): the
/// entrant book, the joins waiting and in flight (stored in batches, one write at a time), the
/// throttled `entrants` count, and which pages belong to which device (for "is the winner's
/// phone here"). Its steps append the room's actions; the room decides when they may run
/// (a draw pool of check-ins, not archived, no other write in flight).
public struct CheckinState: Sendable {
    public var book = CheckinBook()
    var queue: [(entry: CheckinEntry, caller: UInt64)] = []
    var inFlight: [(entry: CheckinEntry, caller: UInt64)] = []
    /// A batch of joins is being stored.
    public internal(set) var writing = false
    public internal(set) var timerArmed = false
    var announced: (count: Int, open: Bool)? = nil
    var memberDevice: [UInt64: String] = [:]
    var deviceMembers: [String: Int] = [:]
    /// Cluster owner: pages on other instances ("instance/page") → their device (counted in `deviceMembers`).
    public internal(set) var remoteDevices: [String: String] = [:]
    /// Single-box: a secret made at start-up; cluster mode: derived from the cluster key (ClusterDrawNode+Checkin).
    public var presence = PresenceCodes()
    /// Joins one transaction stores at most.
    static let batchLimit = 512

    public init() {}

    static func newEntrantID(using random: inout some RandomNumberGenerator) -> String {
        String(decoding: (0..<8).map { _ in DrawCodes.alphabet.randomElement(using: &random)! }, as: UTF8.self)
    }

    // MARK: Joins

    /// A phone's join (the room checked the pool and the archive): refused at once, or reserved
    /// in the book and queued for the next batch.
    mutating func join(_ join: CheckinJoin, caller: UInt64, at time: DrawRoomState.Time,
                       using random: inout some RandomNumberGenerator, _ actions: inout [DrawRoomState.Action]) {
        func refuse(_ code: String, _ detail: JSONValue? = nil) {
            actions.append(.reply(caller: caller, .failure(CommandFailure(code: code, detail: detail))))
        }
        guard book.settings.open else { return refuse("entries_closed") }
        if book.settings.presence {
            guard let code = join.code, presence.accepts(code, at: time.unixMilliseconds) else { return refuse("bad_code") }
        }
        if let refusal = book.refusal(join.form, device: join.device) {
            if refusal.code == "already_joined" {
                return refuse(refusal.code, book.entry(device: join.device).map { .object(["entry": $0.json]) })
            }
            return refuse(refusal.code, refusal.field.map { .object(["field": .string($0)]) })
        }
        guard queue.count + inFlight.count < CheckinBook.maxQueued else { return refuse("busy") }
        var id = Self.newEntrantID(using: &random)
        while !book.isFree(id) { id = Self.newEntrantID(using: &random) }
        var fields = [String: String]()
        for field in join.form.fields { fields[field.key] = field.value }
        let entry = CheckinEntry(id: id, seq: book.nextSeq, name: join.form.name, fields: fields, device: join.device,
                                 joinedAt: time.unixMilliseconds)
        book.reserve(entry)
        queue.append((entry, caller))
    }

    /// The waiting joins' write (one transaction), if any wait; the room calls it when no write is in flight.
    mutating func nextBatch() -> RecordBatch? {
        guard !queue.isEmpty else { return nil }
        let batch = Array(queue.prefix(Self.batchLimit))
        queue.removeFirst(batch.count)
        inFlight = batch
        writing = true
        let inserts = batch.map { item in
            EntrantInsert(entry: item.entry, uniques: book.uniqueSlots(item.entry).map { slot in
                let parts = slot.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
                return UniqueValue(field: String(parts[0]), value: String(parts[1]))
            })
        }
        return RecordBatch(command: "join", records: [], checkin: .join(inserts))
    }

    /// The batch in flight was stored (each join gets its entry) or not (each gets the failure).
    mutating func stored(_ result: Result<Void, DrawRoomState.StoreFailure>, code: String, at time: DrawRoomState.Time,
                         _ actions: inout [DrawRoomState.Action]) {
        let batch = inFlight
        inFlight = []
        writing = false
        switch result {
        case .success:
            for item in batch {
                book.settle(item.entry, stored: true)
                let ack: JSONValue = .object(["type": .string("ack"), "command": .string("join"), "entry": item.entry.json])
                actions.append(.reply(caller: item.caller, .success(CommandReply(ack: ack))))
            }
            scheduleAnnouncement(at: time, &actions)
        case .failure(let failure):
            actions.append(.count(.storageFailures))
            actions.append(.logError("storing \(batch.count) check-ins of draw \(code) failed: \(failure.detail)"))
            for item in batch {
                book.settle(item.entry, stored: false)
                actions.append(.reply(caller: item.caller, .failure(CommandFailure(code: failure.code))))
            }
        }
    }

    /// A host's check-in change is stored: apply it to the book. Closing refuses the joins still waiting.
    mutating func apply(_ change: CheckinChange, _ actions: inout [DrawRoomState.Action]) {
        switch change {
        case .settings(let settings):
            book.settings = settings
        case .remove(let id, let reason):
            book.remove(id: id, reason: reason)
        case .erase(let settings):
            book.settings = settings
            book.erase()
        }
        if !book.settings.open {
            for item in queue {
                book.settle(item.entry, stored: false)
                actions.append(.reply(caller: item.caller, .failure(CommandFailure(code: "entries_closed"))))
            }
            queue = []
        }
    }

    // MARK: The count

    /// `{"type":"entrants","count":n,"open":b}`: how many entrants the pool holds now.
    public var entrantsMessage: JSONValue {
        .object(["type": .string("entrants"), "count": .int(Int64(book.activeCount)), "open": .bool(book.settings.open)])
    }

    /// The count with the settings the join form needs, after a host's check-in command.
    public var entrantsSettingsMessage: JSONValue {
        guard case .object(var members) = entrantsMessage else { return entrantsMessage }
        members["fields"] = .array(book.settings.fields.map(\.json))
        members["presence"] = .bool(book.settings.presence)
        members["publicNames"] = .bool(book.settings.publicNames)
        return .object(members)
    }

    mutating func scheduleAnnouncement(at time: DrawRoomState.Time, _ actions: inout [DrawRoomState.Action]) {
        guard !timerArmed else { return }
        timerArmed = true
        actions.append(.schedule(.entrants, at: time.instant + .seconds(1)))
    }

    /// At most one `entrants` message a second, and only when the count or the status changed.
    mutating func announcementDue(at time: DrawRoomState.Time, _ actions: inout [DrawRoomState.Action]) {
        guard timerArmed else { return }
        timerArmed = false
        let now = (book.activeCount, book.settings.open)
        guard announced.map({ $0 != now }) ?? true else { return }
        announced = now
        actions.append(.announce(.entrants(entrantsMessage)))
        scheduleAnnouncement(at: time, &actions)
    }

    // MARK: Devices

    mutating func deviceLinked(_ id: UInt64, device: String) {
        guard memberDevice[id] == nil else { return }
        memberDevice[id] = device
        deviceMembers[device, default: 0] += 1
    }

    mutating func memberLeft(_ id: UInt64) {
        guard let device = memberDevice.removeValue(forKey: id) else { return }
        let left = (deviceMembers[device] ?? 1) - 1
        deviceMembers[device] = left > 0 ? left : nil
    }

    /// The device hash of page `id`, when it has an entry here.
    func device(ofMember id: UInt64) -> String? {
        guard let hash = memberDevice[id], book.entry(device: hash) != nil else { return nil }
        return hash
    }

    /// Cluster owner: a page on another instance belongs to `device` (nil: it left).
    public mutating func remoteDevice(_ page: String, device: String?) {
        if let old = remoteDevices.removeValue(forKey: page) {
            let left = (deviceMembers[old] ?? 1) - 1
            deviceMembers[old] = left > 0 ? left : nil
        }
        guard let device else { return }
        remoteDevices[page] = device
        deviceMembers[device, default: 0] += 1
    }

    /// Cluster owner: forgets the pages of instances not in `live` (gone quiet: dead or cut off;
    /// their pages reconnect elsewhere and are reported again from there).
    public mutating func pruneRemoteDevices(live: Set<String>) {
        for page in remoteDevices.keys where !live.contains(String(page.prefix { $0 != "/" })) {
            remoteDevice(page, device: nil)
        }
    }

    /// Whether the phone that made entry `id` has a page open in the room (cluster: on any instance).
    public func isConnected(entry id: String) -> Bool {
        guard let device = book.entry(id: id)?.device else { return false }
        return deviceMembers[device] != nil
    }
}
