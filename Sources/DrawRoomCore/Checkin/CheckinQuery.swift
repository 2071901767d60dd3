import JSON

/// What the check-in routes ask a draw, answered from its room's book: by the single-box room
/// itself, in cluster mode by the owner's room (a follower forwards the question and relays the
/// answer, so every instance answers the same).
public enum CheckinQuery: Sendable, Equatable {
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

    public struct PageAsk: Sendable, Equatable {
        public var device: String?
        public var host: Bool

        public init(device: String?, host: Bool) {
            self.device = device
            self.host = host
        }
    }

    public static let maxPages = 1_000

    /// Whether the answer is the whole book (the CSV, the export): a cluster follower reads those
    /// from Redis rather than through the owner (a 100,000-entrant answer is megabytes, too much
    /// for a Pub/Sub message).
    public var isWholeBook: Bool {
        switch self {
        case .export, .list(_, _, _, _, csv: true): true
        default: false
        }
    }

    /// As forwarded to a cluster owner (`ClusterCommandMessage`), read back by `init?(json:)`.
    public var json: JSONValue {
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

    public init?(json: JSONValue) {
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
