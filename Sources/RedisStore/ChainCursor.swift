/// How far an instance has read a draw's round log, and the check that what it reads next
/// continues what it read before. Pure: feed it pages read from `readStart`.
///
/// Redis can lose acknowledged data only if it is misconfigured or its disk lies; this is
/// how a reader notices instead of papering over it:
/// - the epoch (a random id set with the first record) differs: the log was lost and started again;
/// - the entry at the cursor's offset is gone, or holds another hash: the tail we saw was lost;
/// - a new entry does not link to the one before it (prev/index): the chain has a gap.
public struct ChainCursor: Sendable, Equatable {
    public private(set) var epoch: String?
    /// Offset of the last entry taken; nil before the first.
    public private(set) var offset: String?
    public private(set) var lastHash: String = LogRecord.genesisPrev
    public private(set) var nextIndex: Int = 0

    public init() {}

    /// Where the next read starts: inclusive of the last entry taken, so its presence is checked.
    public var readStart: String { offset ?? "-" }

    public enum Break: Error, Sendable, Equatable {
        case epochChanged(expected: String, found: String)
        case offsetMissing(String)
        case brokenLink(offset: String)
    }

    /// Checks a page read from `readStart` and returns the new entries, or the break found
    /// (the cursor is then unchanged).
    public mutating func take(_ page: LogPage) -> Result<[LogEntry], Break> {
        var candidate = self
        if let epoch = candidate.epoch, epoch != page.epoch {
            return .failure(.epochChanged(expected: epoch, found: page.epoch))
        }
        var entries = page.entries[...]
        if let offset = candidate.offset {
            guard let first = entries.first, first.offset == offset, first.hash == candidate.lastHash else {
                return .failure(.offsetMissing(offset))
            }
            entries = entries.dropFirst()
        }
        for entry in entries {
            guard entry.prev == candidate.lastHash, entry.index == candidate.nextIndex else {
                return .failure(.brokenLink(offset: entry.offset))
            }
            candidate.lastHash = entry.hash
            candidate.nextIndex += 1
            candidate.offset = entry.offset
        }
        if candidate.epoch == nil && !page.epoch.isEmpty { candidate.epoch = page.epoch }
        self = candidate
        return .success(Array(entries))
    }
}
