import DrawEngine
import JSON

/// What a check-in route answers (`CheckinQuery`): JSON, or for the host's CSV the entries it
/// lists, which the shell writes as text in the server's time zone (App's `CheckinCSV`).
public enum CheckinAnswer: Sendable {
    case json(JSONValue)
    case csv(entries: [CheckinEntry], fields: [CheckinField])
}

/// Check-in's read model: every question the check-in routes ask a room, answered from its book
/// as it is now, by the single-box room and a cluster owner's room alike (a follower forwards the
/// question, or reads a whole-book answer from Redis into a book and asks it the same).
extension DrawRoomState {
    public func checkinAnswer(_ query: CheckinQuery, at now: Int64) -> Result<CheckinAnswer, CommandFailure> {
        switch query {
        case .entry(let device):
            return .success(.json(.object(["entry": checkin.book.entry(device: device)?.json ?? .null])))
        case .pool:
            guard case .checkin(let ids) = draw.config.pool else { return .failure(CommandFailure(code: "not_checkin")) }
            var answer: [String: JSONValue] = ["count": .int(Int64(ids.count)), "entrants": .array(ids.map { .string($0) }),
                                               "entrantsHash": .string(EntrantList.hash(names: ids, tickets: nil, groups: nil))]
            // With public names the stage's wheel and field show names, not ids (issue 39 item 16).
            if checkin.book.settings.publicNames, !draw.config.isPrivate {
                var names: [String: JSONValue] = [:]
                for id in ids { if let name = checkin.book.entry(id: id)?.name { names[id] = .string(name) } }
                answer["names"] = .object(names)
            }
            return .success(.json(.object(answer)))
        case .presence:
            let current = checkin.presence.current(at: now)
            return .success(.json(.object(["code": .string(current.code), "changesAt": .int(current.changesAt),
                                           "required": .bool(checkin.book.settings.presence), "open": .bool(checkin.book.settings.open)])))
        case .list(let search, let offset, let limit, let removed, let csv):
            if csv { return .success(checkin.book.csvAnswer(search: search)) }
            let page = checkin.book.page(query: search, offset: offset, limit: limit, includeRemoved: removed)
            let items: [JSONValue] = page.items.map { entry in
                guard case .object(var members) = entry.json else { return entry.json }
                members["connected"] = .bool(checkin.isConnected(entry: entry.id))
                return .object(members)
            }
            return .success(.json(.object(["total": .int(Int64(page.total)), "offset": .int(Int64(offset)),
                                           "limit": .int(Int64(limit)), "items": .array(items),
                                           "count": .int(Int64(checkin.book.activeCount)), "open": .bool(checkin.book.settings.open)])))
        case .export:
            return .success(.json(checkin.book.exportAnswer))
        case .winnerPresence:
            return .success(.json(winnerPresenceMessage ?? .null))
        case .pages(let asks):
            guard isCheckinPool else { return .success(.json(.array(asks.map { _ in .null }))) }
            // The board's names once for hosts and once for the others, not once per page (≤ 1,000).
            var names: [Bool: JSONValue] = [:]
            return .success(.json(.array(asks.map { ask -> JSONValue in
                guard ask.host || ask.device.flatMap(checkin.book.entry(device:)) != nil else { return .null }
                let shown = names[ask.host] ?? .object(winnerNames(forHost: ask.host))
                names[ask.host] = shown
                return checkinState(host: ask.host, device: ask.device, names: shown)
            })))
        }
    }
}

extension CheckinBook {
    /// Entries matching `query` (name, id or a field value, case-insensitive; `query` trimmed and
    /// NFC-normalised by the route that read it, as names are when they join), newest first, paged.
    public func page(query: String, offset: Int, limit: Int, includeRemoved: Bool) -> (total: Int, items: [CheckinEntry]) {
        let needle = query.lowercased()
        var total = 0
        var items = [CheckinEntry]()
        for entry in entries.reversed() where includeRemoved || entry.isActive {
            if !needle.isEmpty {
                let hit = entry.id.lowercased().contains(needle) || (entry.name?.lowercased().contains(needle) ?? false)
                    || entry.fields.values.contains { $0.lowercased().contains(needle) }
                if !hit { continue }
            }
            if total >= offset, items.count < limit { items.append(entry) }
            total += 1
        }
        return (total, items)
    }

    /// The CSV's entries: every entry matching `search`, removed ones too, in join order.
    public func csvAnswer(search: String) -> CheckinAnswer {
        let found = page(query: search, offset: 0, limit: Int.max, includeRemoved: true)
        return .csv(entries: found.items.reversed(), fields: settings.fields)
    }

    /// The check-in part of the host's export: settings and every entry.
    public var exportAnswer: JSONValue {
        .object(["settings": settings.json, "entrants": .array(entries.map(\.json))])
    }

    /// The answer to a whole-book query (`CheckinQuery.isWholeBook`), nil for another one.
    public func wholeBookAnswer(_ query: CheckinQuery) -> CheckinAnswer? {
        switch query {
        case .export: .json(exportAnswer)
        case .list(let search, _, _, _, csv: true): csvAnswer(search: search)
        default: nil
        }
    }
}
