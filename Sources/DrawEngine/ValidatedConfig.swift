import JSON

/// A config that passed validation, with what the lock needs precomputed.
struct ValidatedConfig: Sendable {
    /// Normalized: list names trimmed and distinct, exclusions as the pool's values.
    let config: DrawConfig
    /// Names that appeared more than once (kept once), in first-seen order.
    let duplicates: [String]
    let entrants: [String]?
    let entrantsHash: String?
    /// List name → index.
    let nameIndex: [DrawValue: Int]
    let excluded: Set<DrawValue>

    init(_ input: DrawConfig) throws(DrawError) {
        var config = input
        var duplicates = [String]()
        var entrants: [String]? = nil
        var nameIndex = [DrawValue: Int]()
        let size: UInt64
        switch input.pool {
        case .range(let from, let to):
            guard from <= to, abs(from) <= DrawLimits.maxMagnitude, abs(to) <= DrawLimits.maxMagnitude else { throw .invalidRange }
            size = UInt64(to - from) + 1
            guard size >= 2 else { throw .poolTooSmall }
            guard size <= DrawLimits.maxRangeSize else { throw .poolTooLarge }
        case .list(let raw):
            let normalized = try EntrantList.normalize(raw)
            duplicates = normalized.duplicates
            entrants = normalized.names
            config.pool = .list(normalized.names)
            for (index, name) in normalized.names.enumerated() { nameIndex[.name(name)] = index }
            size = UInt64(normalized.names.count)
        }

        guard input.exclude.count <= DrawLimits.maxExclusions else { throw .badExclusion }
        var excluded = Set<DrawValue>()
        var excludeList = [DrawValue]()
        for value in input.exclude {
            let member: DrawValue
            switch input.pool {
            case .range(let from, let to):
                let number: Int64? = switch value {
                case .number(let n): n
                case .name(let s): Int64(EntrantList.trim(s))
                }
                guard let number, number >= from, number <= to else { throw .badExclusion }
                member = .number(number)
            case .list:
                let name = EntrantList.trim(value.description)
                guard nameIndex[.name(name)] != nil else { throw .badExclusion }
                member = .name(name)
            }
            if excluded.insert(member).inserted { excludeList.append(member) }
        }
        guard UInt64(excluded.count) < size else { throw .allExcluded }
        config.exclude = excludeList

        if case .count(let n) = input.perStop, !(1...DrawLimits.maxPerRound).contains(n) { throw .badPerStop }

        guard input.prizes.count <= DrawLimits.maxPrizes else { throw .badPrize }
        config.prizes = []
        for prize in input.prizes {
            let name = EntrantList.trim(prize.name)
            guard (1...DrawLimits.maxPrizeNameLength).contains(name.count), !EntrantList.hasControlCharacter(name),
                  (1...DrawLimits.maxPrizeCount).contains(prize.count) else { throw .badPrize }
            config.prizes.append(Prize(name: name, count: prize.count))
        }
        guard input.prize == 0 || (0..<input.prizes.count).contains(input.prize) else { throw .badPrize }

        self.config = config
        self.duplicates = duplicates
        self.entrants = entrants
        self.entrantsHash = entrants.map { names in Hashing.sha256Hex(JSONValue.array(names.map { .string($0) }).canonicalBytes) }
        self.nameIndex = nameIndex
        self.excluded = excluded
    }
}

/// Turning pasted names into an entrant list (docs/FAIRNESS.md §3, "Names").
public enum EntrantList {
    /// Splits at line breaks, trims, drops empty lines, keeps the first of duplicates.
    public static func normalize(_ raw: [String]) throws(DrawError) -> (names: [String], duplicates: [String]) {
        var names = [String]()
        var seen = Set<DrawValue>()
        var duplicateSet = Set<DrawValue>()
        var duplicates = [String]()
        var lines = 0
        for chunk in raw {
            for line in chunk.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
                let name = trim(String(line))
                if name.isEmpty { continue }
                lines += 1
                guard lines <= 2 * DrawLimits.maxEntrants else { throw .tooManyEntrants }
                guard name.utf8.count <= DrawLimits.maxEntrantBytes, !hasControlCharacter(name) else { throw .badEntrant }
                if seen.insert(.name(name)).inserted {
                    names.append(name)
                } else if duplicateSet.insert(.name(name)).inserted {
                    duplicates.append(name)
                }
            }
        }
        guard names.count <= DrawLimits.maxEntrants else { throw .tooManyEntrants }
        guard names.count >= 2 else { throw .poolTooSmall }
        return (names, duplicates)
    }

    static func trim(_ text: String) -> String {
        let scalars = text.unicodeScalars
        func blank(_ s: Unicode.Scalar) -> Bool { s.properties.isWhitespace || s.value == 0xfeff || s.value == 0x200b }
        guard let first = scalars.firstIndex(where: { !blank($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !blank($0) })!
        return String(scalars[first...last])
    }

    static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }
    }
}
