/// A prize tier: `count` winners labelled `name` ("3rd prize", "一等奖"), optionally limited to
/// entrants of some groups (`onlyGroups`) or closed to some (`exceptGroups`); docs/FAIRNESS.md §3.
public struct Prize: Sendable, Equatable {
    public var name: String
    public var count: Int
    /// nil or empty: every group may win this prize.
    public var onlyGroups: [String]?
    /// nil or empty: no group is shut out.
    public var exceptGroups: [String]?
    /// The tier's own display mode; nil: the draw's (`DrawConfig.mode`).
    public var mode: DisplayMode?

    public init(name: String, count: Int, onlyGroups: [String]? = nil, exceptGroups: [String]? = nil, mode: DisplayMode? = nil) {
        self.name = name
        self.count = count
        self.onlyGroups = onlyGroups
        self.exceptGroups = exceptGroups
        self.mode = mode
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

/// Another draw whose winners this draw excludes (`excludeWinnersOf`, docs/FAIRNESS.md §3).
public struct PastDraw: Sendable, Equatable {
    public var code: String
    /// The other draw's host key, the proof of control a `configure` gives when it links the
    /// draw. Validation drops it: it is never stored, shown or hashed.
    public var key: String?

    public init(code: String, key: String? = nil) {
        self.code = code
        self.key = key
    }
}

/// The winners of another draw as they stand when this draw's Start resolves them: matched
/// against this draw's entrants by id (when both have one) or by name.
public struct PastWinners: Sendable, Equatable {
    public let code: String
    /// `hash` of the other draw's latest record (its chain as it stood), and how many records it had.
    public let head: String
    public let records: Int
    public let names: Set<String>
    public let ids: Set<String>

    public init(code: String, head: String, records: Int, names: Set<String>, ids: Set<String>) {
        self.code = code
        self.head = head
        self.records = records
        self.names = names
        self.ids = ids
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
    /// Checked-in entrants (docs/FAIRNESS.md §3, "Checked-in entrants"): the public ids of the
    /// entries in the pool, in join order. Locked and drawn exactly as a list of these ids; the
    /// entrants' names and fields stay with the App, never in the chain. Any number (0 too:
    /// Start then answers `pool_exhausted`).
    case checkin([String])
    /// Ticket books (`red 1–500, blue 1–500`): drawn as the list of their tickets, `"blue 217"`,
    /// with the books hashed beside the names (docs/FAIRNESS.md §3, "Ticket books").
    case books([TicketBook])
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
    /// Draws whose winners may not win here (list pools); resolved and locked at each Start.
    public var excludeWinnersOf: [PastDraw]
    /// How the stage shows the draw's rounds (a prize tier may override it).
    public var mode: DisplayMode
    /// Which names the screens show masked (display only).
    public var mask: NameMask
    /// Winners must claim, with alternates fixed in advance (check-in pools); nil: no claim.
    public var claim: ClaimSetting?
    /// Beacon-sealed rounds (docs/FAIRNESS.md §13): Stop binds each round to a future drand round.
    public var beacon: Bool
    /// How long Stop's slow-down lasts, in milliseconds (`slowDownRange`); nil: the server's
    /// (1.5 s). Display only: the ticks spread over it, the winners are drawn at Stop all the same.
    public var slowDown: Int?
    /// Rehearsal (issue 45): rounds drawn now are marked `rehearsal` in the record and on every
    /// page, and can be wiped (`clear` with `rehearsal`) before the real event. A session holds
    /// rehearsal rounds or real ones, never both (`rehearsal_mixed`).
    public var rehearsal: Bool = false
    /// The whole order (issue 45): each round draws its winners and then every other eligible
    /// entrant, in order, as its waiting list (the round record's `alternates`, the same sampling
    /// continued: docs/FAIRNESS.md §15). Pools of at most `DrawLimits.maxWaitlist` entrants.
    public var waitlist: Bool = false
    /// The reverse (elimination) raffle (issue 45): each round draws out the next `perStop` entrants
    /// still in (at most all but one; the round record says `reverse`), and the round that leaves
    /// one names it `lastIn`, the winner (docs/FAIRNESS.md §21). Pools of 2 to `maxReverse` entrants.
    public var reverse: Bool = false
    /// Four eyes (issue #41): Start is refused (`signoff_required`) until an observer has signed
    /// off the lock of the round about to start (docs/FAIRNESS.md §20).
    public var foureyes: Bool = false
    /// A private draw (issue #42, docs/FAIRNESS.md §22): a list's entrants are drawn, locked and
    /// published as their public ids (`PrivateEntries`), never by name.
    public var isPrivate: Bool = false
    /// The draw's secret behind the public ids (`PrivateEntries.drawSecret`): set by the server
    /// from its seal key, never read from or written to JSON.
    public var privateSecret: [UInt8]? = nil
    /// A private list's public ids, in the list's order, as validation made them (so the public
    /// settings do not make them again); never in JSON.
    public var privateIDs: [String]? = nil
    /// Whether the settings named `private` (JSON); a configure that does not keeps the draw's.
    public var privateGiven = false
    /// Retention (issue #41): the check-in entrants' personal data (names, fields, devices) is
    /// erased this many days (1…3650) after the draw's last activity (`RetentionPolicy`); nil:
    /// kept until the host erases it. Not in the pool: it may be set or changed after rounds.
    public var retentionDays: Int? = nil

    /// 1.5 to 6 seconds: shorter reads as a jump, longer keeps the room waiting.
    public static let slowDownRange = 1500...6000
    /// A day to ten years.
    public static let retentionRange = 1...3650

    public init(pool: PoolConfig = .range(from: 1, to: 500), exclude: [DrawValue] = [], perStop: PerStop = .count(1),
                repeats: Bool = false, prizes: [Prize] = [], prize: Int = 0, excludeWinnersOf: [PastDraw] = [],
                mode: DisplayMode = .number, mask: NameMask = .none, claim: ClaimSetting? = nil, beacon: Bool = false,
                slowDown: Int? = nil, rehearsal: Bool = false, waitlist: Bool = false, reverse: Bool = false) {
        self.pool = pool
        self.exclude = exclude
        self.perStop = perStop
        self.repeats = repeats
        self.prizes = prizes
        self.prize = prize
        self.excludeWinnersOf = excludeWinnersOf
        self.mode = mode
        self.mask = mask
        self.claim = claim
        self.beacon = beacon
        self.slowDown = slowDown
        self.rehearsal = rehearsal
        self.waitlist = waitlist
        self.reverse = reverse
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
    /// Draws one draw may exclude the winners of.
    public static let maxPastDraws = 20
    public static let maxCodeBytes = 32
    /// The largest pool whose whole order a round draws (`waitlist`; the record holds every entrant).
    public static let maxWaitlist = 10_000
    /// The largest pool of a reverse raffle (the projector's board shows every entrant still in).
    public static let maxReverse = 10_000
}
