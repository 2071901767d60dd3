import DrawRoomCore
import DrawEngine
import JSON
import Posix
import Server

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
            var answer: [String: JSONValue] = ["count": .int(Int64(ids.count)), "entrants": .array(ids.map { .string($0) }),
                                               "entrantsHash": .string(EntrantList.hash(names: ids, tickets: nil, groups: nil))]
            // With public names the stage's wheel and field show names, not ids (issue 39 item 16).
            if checkin.book.settings.publicNames {
                var names: [String: JSONValue] = [:]
                for id in ids { if let name = checkin.book.entry(id: id)?.name { names[id] = .string(name) } }
                answer["names"] = .object(names)
            }
            return .success(.object(answer))
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
