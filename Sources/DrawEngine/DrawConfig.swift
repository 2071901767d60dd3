/// A prize tier: `count` winners labelled `name` ("3rd prize", "一等奖").
public struct Prize: Sendable, Equatable {
    public var name: String
    public var count: Int

    public init(name: String, count: Int) {
        self.name = name
        self.count = count
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
}
