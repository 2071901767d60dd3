/// A prize tier: `count` winners labelled `name` ("3rd prize", "一等奖"), optionally limited to
/// entrants of some groups (`onlyGroups`) or closed to some (`exceptGroups`); docs/FAIRNESS.md §3.
public struct Prize: Codable, Sendable, Equatable {
    public var name: String
    public var count: Int
    /// nil or empty: every group may win this prize.
    public var onlyGroups: [String]?
    /// nil or empty: no group is shut out.
    public var exceptGroups: [String]?

    public init(name: String, count: Int, onlyGroups: [String]? = nil, exceptGroups: [String]? = nil) {
        self.name = name
        self.count = count
        self.onlyGroups = onlyGroups
        self.exceptGroups = exceptGroups
    }

    /// Whether the prize limits who may win it.
    public var hasGroupFilter: Bool { !(onlyGroups ?? []).isEmpty || !(exceptGroups ?? []).isEmpty }
}

/// One entrant of a detailed list (a spreadsheet row): a name, an optional id (checked for
/// repeats, then dropped by validation), a ticket count (weight, 1 by default) and an optional group.
public struct Entrant: Sendable, Equatable {
    public var name: String
    public var id: String?
    public var tickets: Int
    public var group: String?

    public init(name: String, id: String? = nil, tickets: Int = 1, group: String? = nil) {
        self.name = name
        self.id = id
        self.tickets = tickets
        self.group = group
    }
}

/// How many winners one Stop draws.
public enum PerStop: Sendable, Equatable {
    case count(Int)
    /// Everything left (in the current prize, or the whole pool).
    case all
}

/// Where winners come from.
public enum PoolConfig: Sendable, Equatable {
    case range(from: Int64, to: Int64)
    /// Names in the host's order; normalized by validation (split at line breaks, trimmed,
    /// empty lines dropped, duplicates kept once).
    case list([String])
    /// Entrants with tickets, groups and ids, in the host's order. Validation refuses a name
    /// or id given twice (`duplicate_entrant`), drops the ids and turns a list of one-ticket
    /// entrants without group into `.list`.
    case entries([Entrant])
}

/// The host's settings, as `configure` carries them.
public struct DrawConfig: Sendable, Equatable {
    public var pool: PoolConfig
    public var exclude: [DrawValue]
    public var perStop: PerStop
    public var repeats: Bool
    public var prizes: [Prize]
    /// The prize tier the next round starts looking at (0-based).
    public var prize: Int

    public init(pool: PoolConfig = .range(from: 1, to: 500), exclude: [DrawValue] = [], perStop: PerStop = .count(1),
                repeats: Bool = false, prizes: [Prize] = [], prize: Int = 0) {
        self.pool = pool
        self.exclude = exclude
        self.perStop = perStop
        self.repeats = repeats
        self.prizes = prizes
        self.prize = prize
    }

    /// 1…500, one winner per Stop, no repeats, no prizes.
    public static let standard = DrawConfig()
}

public enum DrawLimits {
    public static let maxRangeSize: UInt64 = 1_000_000_000_000
    /// Range bounds stay exact in JavaScript numbers.
    public static let maxMagnitude: Int64 = 9_007_199_254_740_991
    public static let maxEntrants = 100_000
    public static let maxEntrantBytes = 200
    public static let maxExclusions = 100_000
    public static let maxPerRound = 100_000
    public static let maxPrizes = 100
    public static let maxPrizeCount = 1_000_000
    public static let maxPrizeNameLength = 100
    public static let maxReasonLength = 200
    public static let maxAudienceDigits = 32
    /// Tickets one entrant may hold (so a pool holds at most 10^11 tickets).
    public static let maxTickets = 1_000_000
    public static let maxGroupBytes = 100
    public static let maxIdBytes = 200
    /// Groups one prize may name in `onlyGroups` plus `exceptGroups`.
    public static let maxPrizeGroups = 100
}

extension PerStop: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let count = try? container.decode(Int.self) {
            self = .count(count)
        } else if try container.decode(String.self) == "all" {
            self = .all
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "perStop is a number or \"all\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .count(let n): try container.encode(n)
        case .all: try container.encode("all")
        }
    }
}

extension PoolConfig: Codable {
    private enum Keys: String, CodingKey { case kind, from, to, entrants, text }

    /// `{"kind":"range","from":1,"to":500}`, `{"kind":"list","entrants":[…]}` or `{"kind":"list","text":"…"}`.
    /// `entrants` items are names, or objects `{"name","id","tickets","group"}` (then `.entries`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        switch try container.decode(String.self, forKey: .kind) {
        case "range":
            self = .range(from: try container.decode(Int64.self, forKey: .from), to: try container.decode(Int64.self, forKey: .to))
        case "list":
            if let entrants = try? container.decodeIfPresent([String].self, forKey: .entrants) {
                self = .list(entrants)
            } else if container.contains(.entrants) {
                let items = try container.decode([EntrantItem].self, forKey: .entrants)
                self = .entries(items.map(\.entrant))
            } else {
                self = .list([try container.decode(String.self, forKey: .text)])
            }
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: container, debugDescription: "kind is range or list")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch self {
        case .range(let from, let to):
            try container.encode("range", forKey: .kind)
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
        case .list(let names):
            try container.encode("list", forKey: .kind)
            try container.encode(names, forKey: .entrants)
        case .entries(let entrants):
            try container.encode("list", forKey: .kind)
            try container.encode(entrants, forKey: .entrants)
        }
    }
}

/// An `entrants` item: a bare name or an entrant object.
private struct EntrantItem: Decodable {
    let entrant: Entrant

    init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            entrant = Entrant(name: name)
        } else {
            entrant = try Entrant(from: decoder)
        }
    }
}

extension Entrant: Codable {
    private enum Keys: String, CodingKey { case name, id, tickets, group }

    /// `{"name":"Ann","id":"E17","tickets":3,"group":"Sales"}`; only `name` is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        self.init(name: try c.decode(String.self, forKey: .name), id: try c.decodeIfPresent(String.self, forKey: .id),
                  tickets: try c.decodeIfPresent(Int.self, forKey: .tickets) ?? 1,
                  group: try c.decodeIfPresent(String.self, forKey: .group))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encode(tickets, forKey: .tickets)
        try c.encodeIfPresent(group, forKey: .group)
    }
}

extension DrawConfig: Codable {
    private enum Keys: String, CodingKey { case pool, exclude, perStop, repeats, prizes, prize }

    /// Missing keys take the defaults of `DrawConfig.standard`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        self.init(
            pool: try c.decodeIfPresent(PoolConfig.self, forKey: .pool) ?? .range(from: 1, to: 500),
            exclude: try c.decodeIfPresent([DrawValue].self, forKey: .exclude) ?? [],
            perStop: try c.decodeIfPresent(PerStop.self, forKey: .perStop) ?? .count(1),
            repeats: try c.decodeIfPresent(Bool.self, forKey: .repeats) ?? false,
            prizes: try c.decodeIfPresent([Prize].self, forKey: .prizes) ?? [],
            prize: try c.decodeIfPresent(Int.self, forKey: .prize) ?? 0)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(pool, forKey: .pool)
        try c.encode(exclude, forKey: .exclude)
        try c.encode(perStop, forKey: .perStop)
        try c.encode(repeats, forKey: .repeats)
        try c.encode(prizes, forKey: .prizes)
        try c.encode(prize, forKey: .prize)
    }
}
