import DrawRoomCore
import DrawEngine
import JSON
import Posix
import Server

/// What the check-in routes ask a draw, answered from its room's book: by the single-box
/// `DrawRoom` itself, in cluster mode by the owner's room (a follower forwards the question and
/// relays the answer, so every instance answers the same).
enum CheckinQuery: Sendable, Equatable {
    /// The entry of a device (hash of its cookie); `{"entry":…|null}`.
    case entry(device: String)
    /// The locked pool's public ids (`GET …/entries/pool`); `not_checkin` unless a check-in pool.
    case pool
    /// The presence code to show now (`GET …/entries/presence`).
    case presence
    /// The host's list (`GET …/entrants`), or with `csv` every entry as `{"csv":text}`.
    case list(search: String, offset: Int, limit: Int, removed: Bool, csv: Bool)
    /// The check-in part of the host's export: settings and every entry.
    case export
    /// For hosts on other instances: the `winnerPresence` message (null when there is none).
    case winnerPresence
    /// For pages on another instance (at most `maxPages`): each one's `state.checkin` (its
    /// device's `me`, a host's `names`), or null where it is the public one.
    case pages([PageAsk])

    struct PageAsk: Sendable, Equatable {
        var device: String?
        var host: Bool
    }

    static let maxPages = 1_000

    var json: JSONValue {
        switch self {
        case .entry(let device): .object(["op": .string("entry"), "device": .string(device)])
        case .pool: .object(["op": .string("pool")])
        case .presence: .object(["op": .string("presence")])
        case .list(let search, let offset, let limit, let removed, let csv):
            .object(["op": .string("list"), "q": .string(search), "offset": .int(Int64(offset)), "limit": .int(Int64(limit)),
                     "removed": .bool(removed), "csv": .bool(csv)])
        case .export: .object(["op": .string("export")])
        case .winnerPresence: .object(["op": .string("winnerPresence")])
        case .pages(let asks):
            .object(["op": .string("pages"), "pages": .array(asks.map {
                .object(["device": $0.device.map { .string($0) } ?? .null, "host": .bool($0.host)])
            })])
        }
    }

    init?(json: JSONValue) {
        switch json["op"]?.stringValue {
        case "entry":
            guard let device = json["device"]?.stringValue else { return nil }
            self = .entry(device: device)
        case "pool": self = .pool
        case "presence": self = .presence
        case "list":
            guard let search = json["q"]?.stringValue, let offset = json["offset"]?.intValue, let limit = json["limit"]?.intValue,
                  let removed = json["removed"]?.boolValue, let csv = json["csv"]?.boolValue, offset >= 0, limit >= 1 else { return nil }
            self = .list(search: String(search.prefix(200)), offset: Int(offset), limit: Int(min(limit, 200)), removed: removed, csv: csv)
        case "export": self = .export
        case "winnerPresence": self = .winnerPresence
        case "pages":
            guard let items = json["pages"]?.arrayValue, items.count <= Self.maxPages else { return nil }
            var asks = [PageAsk]()
            for item in items {
                guard let host = item["host"]?.boolValue else { return nil }
                asks.append(PageAsk(device: item["device"]?.stringValue, host: host))
            }
            self = .pages(asks)
        default: return nil
        }
    }
}

/// A draw the check-in routes can serve: `DrawRoom` (single-box, and a cluster owner's room)
/// and `ClusterDrawNode` (any instance of a cluster).
protocol CheckinChannel: DrawChannel {
    /// Per-instance attempt limits (in cluster mode each instance limits what reaches it).
    var checkinLimits: CheckinLimits { get }
    /// A phone's join: the request body (checked against the room's settings there), its device
    /// hash; the ack carries the `entry`, a refusal its `detail`.
    func checkinJoin(_ body: JSONValue, device: String, completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void)
    /// A phone claims its win with its device hash (#26, docs/PROTOCOL.md "Claims").
    func checkinClaim(device: String, completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void)
    /// The answer to `query` as JSON.
    func checkinRead(_ query: CheckinQuery, completion: @escaping @Sendable (Result<JSONValue, CommandFailure>) -> Void)
}

extension DrawRoom: CheckinChannel {
    func checkinJoin(_ body: JSONValue, device: String, completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        // The form is checked against the room's settings, on its loop (they may change meanwhile).
        whenReady({ [self] in
            switch CheckinForm.parse(body, settings: state.checkin.book.settings) {
            case .failure(let refusal):
                completion(.failure(CommandFailure(code: refusal.code, detail: refusal.field.map { .object(["field": .string($0)]) })))
            case .success(let form):
                checkin(CheckinJoin(form: form.form, device: device, code: form.code), completion: completion)
            }
        }, otherwise: { completion(.failure(CommandFailure(code: "storage_failed"))) })
    }

    func checkinClaim(device: String, completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        claim(device: device, completion: completion)
    }

    func checkinRead(_ query: CheckinQuery, completion: @escaping @Sendable (Result<JSONValue, CommandFailure>) -> Void) {
        whenReady({ [self] in completion(state.checkinAnswer(query, at: Int64(WallClock.unixMilliseconds()))) },
                  otherwise: { completion(.failure(CommandFailure(code: "storage_failed"))) })
    }
}

extension DrawRoomState {
    /// What a check-in route answers, from the book as it is now.
    func checkinAnswer(_ query: CheckinQuery, at now: Int64) -> Result<JSONValue, CommandFailure> {
        switch query {
        case .entry(let device):
            return .success(.object(["entry": checkin.book.entry(device: device)?.json ?? .null]))
        case .pool:
            guard case .checkin(let ids) = draw.config.pool else { return .failure(CommandFailure(code: "not_checkin")) }
            return .success(.object(["count": .int(Int64(ids.count)), "entrants": .array(ids.map { .string($0) }),
                                     "entrantsHash": .string(EntrantList.hash(names: ids, tickets: nil, groups: nil))]))
        case .presence:
            let current = checkin.presence.current(at: now)
            return .success(.object(["code": .string(current.code), "changesAt": .int(current.changesAt),
                                     "required": .bool(checkin.book.settings.presence), "open": .bool(checkin.book.settings.open)]))
        case .list(let search, let offset, let limit, let removed, let csv):
            if csv { return .success(checkin.book.csvAnswer(search: search)) }
            let page = checkin.book.page(query: search, offset: offset, limit: limit, includeRemoved: removed)
            let items: [JSONValue] = page.items.map { entry in
                guard case .object(var members) = entry.json else { return entry.json }
                members["connected"] = .bool(checkin.isConnected(entry: entry.id))
                return .object(members)
            }
            return .success(.object(["total": .int(Int64(page.total)), "offset": .int(Int64(offset)),
                                     "limit": .int(Int64(limit)), "items": .array(items),
                                     "count": .int(Int64(checkin.book.activeCount)), "open": .bool(checkin.book.settings.open)]))
        case .export:
            return .success(checkin.book.exportAnswer)
        case .winnerPresence:
            return .success(winnerPresenceMessage ?? .null)
        case .pages(let asks):
            guard isCheckinPool else { return .success(.array(asks.map { _ in .null })) }
            // The board's names once for hosts and once for the others, not once per page (≤ 1,000).
            var names: [Bool: JSONValue] = [:]
            return .success(.array(asks.map { ask -> JSONValue in
                guard ask.host || ask.device.flatMap(checkin.book.entry(device:)) != nil else { return .null }
                let shown = names[ask.host] ?? .object(winnerNames(forHost: ask.host))
                names[ask.host] = shown
                return checkinState(host: ask.host, device: ask.device, names: shown)
            }))
        }
    }
}

extension CheckinQuery {
    /// Whether the answer is the whole book (the CSV, the export): a cluster follower reads those
    /// from Redis rather than through the owner (a 100,000-entrant answer is megabytes, too much
    /// for a Pub/Sub message).
    var isWholeBook: Bool {
        switch self {
        case .export, .list(_, _, _, _, csv: true): true
        default: false
        }
    }
}

extension CheckinBook {
    /// `{"csv":text}`: every entry matching `search`, removed ones too, in join order.
    func csvAnswer(search: String) -> JSONValue {
        let page = page(query: search, offset: 0, limit: Int.max, includeRemoved: true)
        return .object(["csv": .string(CheckinCSV.text(page.items.reversed(), fields: settings.fields))])
    }

    /// The check-in part of the host's export: settings and every entry.
    var exportAnswer: JSONValue {
        .object(["settings": settings.json, "entrants": .array(entries.map(\.json))])
    }

    /// The answer to a whole-book query (`CheckinQuery.isWholeBook`), nil for another one.
    func wholeBookAnswer(_ query: CheckinQuery) -> JSONValue? {
        switch query {
        case .export: exportAnswer
        case .list(let search, _, _, _, csv: true): csvAnswer(search: search)
        default: nil
        }
    }
}

extension CheckinCommand {
    /// As forwarded to a cluster owner (`ClusterDrawNode.encode`), read back by `init?(json:)`.
    var json: JSONValue {
        switch self {
        case .open(let settings): .object(["op": .string("open"), "settings": settings?.json ?? .null])
        case .close: .object(["op": .string("close")])
        case .remove(let id, let reason): .object(["op": .string("remove"), "id": .string(id), "reason": .string(reason)])
        case .erase: .object(["op": .string("erase")])
        }
    }

    init?(json: JSONValue) {
        switch json["op"]?.stringValue {
        case "open":
            guard let value = json["settings"] else { return nil }
            if value.isNull { self = .open(nil); return }
            guard let settings = CheckinSettings.parse(value, base: CheckinSettings()) else { return nil }
            self = .open(settings)
        case "close": self = .close
        case "remove":
            guard let id = json["id"]?.stringValue, let reason = json["reason"]?.stringValue else { return nil }
            self = .remove(id: id, reason: CheckinForm.clean(reason))
        case "erase": self = .erase
        default: return nil
        }
    }
}
