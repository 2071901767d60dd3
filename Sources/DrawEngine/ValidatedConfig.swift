import JSON

/// A config that passed validation, with what the lock needs precomputed.
struct ValidatedConfig: Sendable {
    /// Normalized: list names trimmed and distinct, exclusions as the pool's values.
    let config: DrawConfig
    /// Names that appeared more than once (kept once), in first-seen order.
    let duplicates: [String]
    let entrants: [String]?
    /// Tickets per entrant, only when some entrant holds more than one (a weighted list).
    let tickets: [UInt64]?
    /// Group per entrant ("" for none), only when some entrant has a group.
    let groups: [String]?
    let entrantsHash: String?
    /// Id per entrant ("" for none), only when some entrant has one; kept for `excludeWinnersOf`
    /// (matched by id), never hashed and never in the public settings.
    let ids: [String]?
    /// A private list's names by public id (docs/FAIRNESS.md §22); empty otherwise. The server's only.
    let privateNames: [String: String]
    /// The ticket books of a `.books` pool (hashed with the names, FAIRNESS.md §3), else nil.
    let books: [TicketBook]?
    /// List name → index.
    let nameIndex: [DrawValue: Int]
    let excluded: Set<DrawValue>

    init(_ input: DrawConfig) throws(DrawError) {
        var config = input
        var duplicates = [String]()
        var entrants: [String]? = nil
        var tickets: [UInt64]? = nil
        var groups: [String]? = nil
        var ids: [String]? = nil
        var books: [TicketBook]? = nil
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
            nameIndex.reserveCapacity(normalized.names.count)
            for (index, name) in normalized.names.enumerated() { nameIndex[.name(name)] = index }
            size = UInt64(normalized.names.count)
        case .entries(let raw):
            let details = try EntrantList.normalize(raw)
            entrants = details.names
            tickets = details.tickets
            groups = details.groups
            if let entrants = details.entrants, entrants.contains(where: { $0.id != nil }) { ids = entrants.map { $0.id ?? "" } }
            config.pool = details.entrants.map { .entries($0) } ?? .list(details.names)
            nameIndex.reserveCapacity(details.names.count)
            for (index, name) in details.names.enumerated() { nameIndex[.name(name)] = index }
            size = UInt64(details.names.count)
        case .books(let raw):
            let checked = try TicketBook.validate(raw)
            books = checked.books
            entrants = checked.tickets
            config.pool = .books(checked.books)
            nameIndex.reserveCapacity(checked.tickets.count)
            for (index, name) in checked.tickets.enumerated() { nameIndex[.name(name)] = index }
            size = UInt64(checked.tickets.count)
        case .checkin(let ids):
            // Public ids made by the App: checked like names, never merged (a repeat is a bug upstream).
            guard ids.count <= DrawLimits.maxEntrants else { throw .tooManyEntrants }
            for (index, id) in ids.enumerated() {
                guard !id.isEmpty, id == EntrantList.trim(id), id.utf8.count <= DrawLimits.maxEntrantBytes,
                      !EntrantList.hasControlCharacter(id) else { throw .badEntrant }
                guard nameIndex.updateValue(index, forKey: .name(id)) == nil else { throw .duplicateEntrant }
            }
            entrants = ids
            size = UInt64(ids.count)
        }

        // A private draw (docs/FAIRNESS.md §22): the chain's list is the entries' public ids; the
        // host's names (exclusions too) are matched to them here and go no further.
        var privateIDs: [String: String]? = nil
        var privateNames: [String: String] = [:]
        if input.isPrivate, input.poolHasNames, let names = entrants {
            // The draw's secret: made at the first private configure, then kept in the stored
            // settings (`Draw.configure` carries it over), never in the public ones.
            let secret = input.privateSecret ?? PrivateEntries.newSecret()
            config.privateSecret = secret
            var byName = [String: String](minimumCapacity: names.count)
            privateNames.reserveCapacity(names.count)
            let salter = PrivateEntries.Salter(secret: secret)
            let ids = names.map { name in
                let id = salter.publicID(name: name)
                byName[name] = id
                privateNames[id] = name
                return id
            }
            privateIDs = byName
            config.privateIDs = ids
            entrants = ids
            nameIndex.removeAll(keepingCapacity: true)
            for (index, id) in ids.enumerated() { nameIndex[.name(id)] = index }
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
            case .list, .entries, .checkin, .books:
                let name = EntrantList.trim(value.description)
                // A private list's exclusions stay the host's names in the settings, and leave out their public ids.
                let id = privateIDs.flatMap { $0[name] } ?? name
                guard nameIndex[.name(id)] != nil else { throw .badExclusion }
                if excluded.insert(.name(id)).inserted { excludeList.append(.name(name)) }
                continue
            }
            if excluded.insert(member).inserted { excludeList.append(member) }
        }
        // A check-in pool may be empty (or emptied) while entries are open; Start refuses it then.
        if case .checkin = input.pool {} else {
            guard UInt64(excluded.count) < size else { throw .allExcluded }
        }
        config.exclude = excludeList

        if case .count(let n) = input.perStop, !(1...DrawLimits.maxPerRound).contains(n) { throw .badPerStop }

        guard input.prizes.count <= DrawLimits.maxPrizes else { throw .badPrize }
        config.prizes = []
        for prize in input.prizes {
            let name = EntrantList.trim(prize.name)
            guard (1...DrawLimits.maxPrizeNameLength).contains(name.count), !EntrantList.hasControlCharacter(name),
                  (1...DrawLimits.maxPrizeCount).contains(prize.count) else { throw .badPrize }
            let only = try Self.groupNames(prize.onlyGroups)
            let except = try Self.groupNames(prize.exceptGroups)
            guard only.count + except.count <= DrawLimits.maxPrizeGroups else { throw .badGroup }
            if case .range = input.pool, !(only.isEmpty && except.isEmpty) { throw .badGroup }
            config.prizes.append(Prize(name: name, count: prize.count, onlyGroups: only.isEmpty ? nil : only,
                                       exceptGroups: except.isEmpty ? nil : except, mode: prize.mode))
        }
        guard input.prize == 0 || (0..<input.prizes.count).contains(input.prize) else { throw .badPrize }

        guard input.excludeWinnersOf.count <= DrawLimits.maxPastDraws else { throw .badPastDraw }
        var pastCodes = Set<String>()
        config.excludeWinnersOf = []
        for past in input.excludeWinnersOf {
            let code = EntrantList.trim(past.code)
            guard (1...DrawLimits.maxCodeBytes).contains(code.utf8.count),
                  code.utf8.allSatisfy({ $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber
                                                        || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")) }),
                  pastCodes.insert(code).inserted else { throw .badPastDraw }
            if case .range = input.pool { throw .badPastDraw }
            config.excludeWinnersOf.append(PastDraw(code: code))
        }
        if let claim = input.claim {
            guard case .checkin = input.pool, ClaimSetting.secondsRange.contains(claim.seconds),
                  ClaimSetting.alternatesRange.contains(claim.alternates) else { throw .badClaim }
        }
        if let slowDown = input.slowDown, !DrawConfig.slowDownRange.contains(slowDown) { throw .badSlowDown }
        if let days = input.retentionDays, !DrawConfig.retentionRange.contains(days) { throw .badRetention }
        // The whole order is written into each round record: pools of at most 10,000 entrants.
        if input.waitlist, size > UInt64(DrawLimits.maxWaitlist) { throw .badWaitlist }
        // A reverse raffle (docs/FAIRNESS.md §21) draws people *out*: no prizes, repeats, claims, whole
        // order, beacon seal or weights (more tickets would mean more chances to be eliminated).
        if input.reverse {
            guard (2...UInt64(DrawLimits.maxReverse)).contains(size), input.prizes.isEmpty, !input.repeats, input.claim == nil,
                  !input.waitlist, !input.beacon, tickets == nil else { throw .badReverse }
        }

        self.config = config
        self.duplicates = duplicates
        self.entrants = entrants
        self.tickets = tickets
        self.groups = groups
        self.books = books
        self.entrantsHash = entrants.map { EntrantList.hash(names: $0, tickets: tickets, groups: groups, books: books) }
        self.ids = ids
        self.privateNames = privateNames
        self.nameIndex = nameIndex
        self.excluded = excluded
    }
}

extension ValidatedConfig {
    /// A prize's group names: trimmed, 1–100 bytes, no control characters, distinct, sorted bytewise.
    static func groupNames(_ raw: [String]?) throws(DrawError) -> [String] {
        var seen = Set<DrawValue>()
        var names = [String]()
        for item in raw ?? [] {
            let name = EntrantList.trim(item)
            guard !name.isEmpty, name.utf8.count <= DrawLimits.maxGroupBytes, !EntrantList.hasControlCharacter(name),
                  (raw ?? []).count <= DrawLimits.maxPrizeGroups else { throw .badGroup }
            if seen.insert(.name(name)).inserted { names.append(name) }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// Whether an entrant of `group` ("" for none) may win prize `prize`.
    static func isEligible(group: String, for prize: Prize) -> Bool {
        func listed(_ names: [String]) -> Bool { names.contains { $0.utf8.elementsEqual(group.utf8) } }
        if let only = prize.onlyGroups, !only.isEmpty, !listed(only) { return false }
        if let except = prize.exceptGroups, listed(except) { return false }
        return true
    }
}

/// Turning pasted names into an entrant list (docs/FAIRNESS.md §3, "Names").
public enum EntrantList {
    /// `entrantsHash` (§3): of the names array for a plain list, of
    /// `{"names","tickets"?,"groups"?}` for a detailed one, of `{"books","names"}` for ticket books.
    public static func hash(names: [String], tickets: [UInt64]?, groups: [String]?, books: [TicketBook]? = nil) -> String {
        Hashing.sha256Hex(json(names: names, tickets: tickets, groups: groups, books: books).canonicalBytes)
    }

    static func json(names: [String], tickets: [UInt64]?, groups: [String]?, books: [TicketBook]? = nil) -> JSONValue {
        let array = JSONValue.array(names.map { .string($0) })
        guard tickets != nil || groups != nil || books != nil else { return array }
        var members: [String: JSONValue] = ["names": array]
        if let books { members["books"] = .array(books.map(\.json)) }
        if let tickets { members["tickets"] = .array(tickets.map { .int(Int64($0)) }) }
        if let groups { members["groups"] = .array(groups.map { .string($0) }) }
        return .object(members)
    }

    /// A detailed list, validated: names and ids trimmed and distinct (a repeat is
    /// `duplicateEntrant`, never merged silently), tickets 1…1,000,000, groups trimmed (empty:
    /// none). Ids are kept in the stored settings (`excludeWinnersOf` matches by id) but never
    /// hashed, never in the chain and never in the public settings (`DrawConfig.publicJSON`).
    /// `tickets`/`groups` are nil when every entrant holds one ticket / has no group;
    /// `entrants` is nil when the list is plain, without ids (then it is drawn as `.list(names)`).
    public static func normalize(_ raw: [Entrant]) throws(DrawError)
        -> (names: [String], tickets: [UInt64]?, groups: [String]?, entrants: [Entrant]?) {
        guard raw.count <= DrawLimits.maxEntrants else { throw .tooManyEntrants }
        var names = [String](), tickets = [UInt64](), groups = [String](), entrants = [Entrant]()
        var seenNames = Set<DrawValue>(minimumCapacity: raw.count), seenIDs = Set<DrawValue>()
        names.reserveCapacity(raw.count)
        tickets.reserveCapacity(raw.count)
        groups.reserveCapacity(raw.count)
        entrants.reserveCapacity(raw.count)
        var weighted = false, grouped = false, identified = false
        for item in raw {
            var id: String? = nil
            let name = trim(item.name)
            guard !name.isEmpty, name.utf8.count <= DrawLimits.maxEntrantBytes, !hasControlCharacter(name) else { throw .badEntrant }
            guard (1...DrawLimits.maxTickets).contains(item.tickets) else { throw .badTickets }
            let group = trim(item.group ?? "")
            guard group.utf8.count <= DrawLimits.maxGroupBytes, !hasControlCharacter(group) else { throw .badGroup }
            if let raw = item.id {
                let text = trim(raw)
                guard text.utf8.count <= DrawLimits.maxIdBytes, !hasControlCharacter(text) else { throw .badEntrant }
                if !text.isEmpty {
                    guard seenIDs.insert(.name(text)).inserted else { throw .duplicateEntrant }
                    id = text
                }
            }
            guard seenNames.insert(.name(name)).inserted else { throw .duplicateEntrant }
            weighted = weighted || item.tickets != 1
            grouped = grouped || !group.isEmpty
            identified = identified || id != nil
            names.append(name)
            tickets.append(UInt64(item.tickets))
            groups.append(group)
            entrants.append(Entrant(name: name, id: id, tickets: item.tickets, group: group.isEmpty ? nil : group))
        }
        guard names.count >= 2 else { throw .poolTooSmall }
        return (names, weighted ? tickets : nil, grouped ? groups : nil, weighted || grouped || identified ? entrants : nil)
    }

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

    public static func trim(_ text: String) -> String {
        // Most names start and end with a visible ASCII character: nothing to trim.
        if let first = text.utf8.first, let last = text.utf8.last, (0x21...0x7e).contains(first), (0x21...0x7e).contains(last) {
            return text
        }
        let scalars = text.unicodeScalars
        func blank(_ s: Unicode.Scalar) -> Bool { s.properties.isWhitespace || s.value == 0xfeff || s.value == 0x200b }
        guard let first = scalars.firstIndex(where: { !blank($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !blank($0) })!
        return String(scalars[first...last])
    }

    public static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }
    }
}
