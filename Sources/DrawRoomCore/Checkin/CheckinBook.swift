import JSON

/// One checked-in entrant. `name`/`fields`/`device` are nil once erased.
public struct CheckinEntry: Sendable, Equatable {
    public let id: String
    public let seq: Int
    public var name: String?
    public var fields: [String: String]
    /// `hex(SHA256(device token))`.
    public var device: String?
    public let joinedAt: Int64
    public var removedReason: String?

    public init(id: String, seq: Int, name: String? = nil,
                fields: [String: String], device: String? = nil, joinedAt: Int64, removedReason: String? = nil) {
        self.id = id
        self.seq = seq
        self.name = name
        self.fields = fields
        self.device = device
        self.joinedAt = joinedAt
        self.removedReason = removedReason
    }

    public var isActive: Bool { removedReason == nil }

    /// For the entrant's own phone and the host: the id, name and fields.
    public var json: JSONValue {
        var members: [String: JSONValue] = ["id": .string(id), "seq": .int(Int64(seq)), "name": name.map { .string($0) } ?? .null,
                                            "fields": .object(fields.mapValues { .string($0) }), "joinedAt": .int(joinedAt)]
        if let removedReason { members["removed"] = .string(removedReason) }
        return .object(members)
    }
}

/// A draw's entrant book in memory, on the draw loop: every entry (removed ones too, so a
/// removed device cannot join again), the devices and unique values taken, and the entries
/// whose write is in flight (reserved, so nothing is stored twice).
public struct CheckinBook: Sendable {
    /// The most entries one draw holds (the pool limit of docs/FAIRNESS.md).
    public static let maxEntries = 100_000
    /// Joins waiting or in flight, at most (more are refused `busy`: bounded memory under a flood).
    public static let maxQueued = 4_096

    public var settings = CheckinSettings()
    public private(set) var entries: [CheckinEntry] = []
    private var byID: [String: Int] = [:]
    private var devices: [String: String] = [:]
    /// "field\u{0}value key" → public id.
    private var uniques: [String: String] = [:]
    public private(set) var activeCount = 0
    public private(set) var nextSeq = 1
    /// Prizes handed over (issue 45; Handover/DrawRoomState+Handover.swift), read back from the audit log.
    public var handovers: [Handover] = []
    /// Reserved by joins not yet stored.
    private var reservedDevices: Set<String> = []
    private var reservedUniques: Set<String> = []
    private var reservedIDs: Set<String> = []
    public private(set) var reservedCount = 0

    public init() {}

    /// Rebuilt from storage.
    public init(settings: CheckinSettings, entries stored: [CheckinEntry]) {
        self.settings = settings
        for entry in stored { insert(entry) }
    }

    /// The public ids of the entries in the pool, in join order.
    public var activeIDs: [String] { entries.filter(\.isActive).map(\.id) }

    public func entry(id: String) -> CheckinEntry? { byID[id].map { entries[$0] } }

    public func entry(device: String) -> CheckinEntry? { devices[device].flatMap(entry(id:)) }

    public static func uniqueSlot(_ field: String, _ value: String) -> String { field + "\u{0}" + CheckinForm.uniqueKey(value) }

    /// Why `form` from `device` cannot join now (nil: it can): `already_joined`,
    /// `duplicate_value` (with the field), `entries_full`.
    public func refusal(_ form: CheckinForm, device: String) -> CheckinForm.Refusal? {
        if devices[device] != nil || reservedDevices.contains(device) { return .init(code: "already_joined") }
        for field in settings.fields where field.unique {
            guard let value = form.fields.first(where: { $0.key == field.key })?.value else { continue }
            let slot = Self.uniqueSlot(field.key, value)
            if uniques[slot] != nil || reservedUniques.contains(slot) { return .init(code: "duplicate_value", field: field.key) }
        }
        if entries.count + reservedCount >= Self.maxEntries { return .init(code: "entries_full") }
        return nil
    }

    /// Whether `id` is free (not taken nor reserved).
    public func isFree(_ id: String) -> Bool { byID[id] == nil && !reservedIDs.contains(id) }

    /// Holds the device, unique values and id of an entry whose write is in flight.
    public mutating func reserve(_ entry: CheckinEntry) {
        reservedDevices.insert(entry.device ?? "")
        reservedIDs.insert(entry.id)
        for slot in uniqueSlots(entry) { reservedUniques.insert(slot) }
        reservedCount += 1
        nextSeq = max(nextSeq, entry.seq + 1)
    }

    /// The write of a reserved entry is done: stored (it joins the book) or not (released).
    public mutating func settle(_ entry: CheckinEntry, stored: Bool) {
        reservedDevices.remove(entry.device ?? "")
        reservedIDs.remove(entry.id)
        for slot in uniqueSlots(entry) { reservedUniques.remove(slot) }
        reservedCount -= 1
        if stored { insert(entry) }
    }

    /// Unique values an entry holds.
    public func uniqueSlots(_ entry: CheckinEntry) -> [String] {
        settings.fields.filter(\.unique).compactMap { field in entry.fields[field.key].map { Self.uniqueSlot(field.key, $0) } }
    }

    private mutating func insert(_ entry: CheckinEntry) {
        byID[entry.id] = entries.count
        if let device = entry.device { devices[device] = entry.id }
        if entry.isActive {
            activeCount += 1
            for slot in uniqueSlots(entry) { uniques[slot] = entry.id }
        }
        entries.append(entry)
        nextSeq = max(nextSeq, entry.seq + 1)
    }

    /// Takes `id` out of the pool with `reason` (its device stays known; its unique values are freed).
    public mutating func remove(id: String, reason: String) {
        guard let index = byID[id], entries[index].isActive else { return }
        for slot in uniqueSlots(entries[index]) { uniques[slot] = nil }
        entries[index].removedReason = reason
        activeCount -= 1
    }

    /// Forgets every entrant's personal fields and takes all out of the pool; public ids stay.
    public mutating func erase() {
        for index in entries.indices {
            if entries[index].isActive { entries[index].removedReason = "erased" }
            entries[index].name = nil
            entries[index].fields = [:]
            entries[index].device = nil
        }
        devices = [:]
        uniques = [:]
        activeCount = 0
    }
}
