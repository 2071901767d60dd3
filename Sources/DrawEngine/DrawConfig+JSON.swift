import JSON

/// Why a settings object could not be read: the field, as a path (`pool.kind`,
/// `prizes.Index 0.name`; array elements are named `Index n`).
public struct DrawConfigDecodingError: Error, Equatable, Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    init(_ path: [FieldReader.Component]) {
        self.path = path.map { component in
            switch component {
            case .key(let key): key
            case .index(let index): "Index \(index)"
            }
        }.joined(separator: ".")
    }
}

extension DrawConfig {
    /// `{"pool":…,"exclude":[…],"perStop":n|"all","repeats":b,"prizes":[{"name","count"}],"prize":n,"mode":"number","mask":"none"}`
    /// (docs/PROTOCOL.md). Missing or null keys take the defaults of `DrawConfig.standard`;
    /// unknown keys are ignored.
    public init(json: JSONValue) throws(DrawConfigDecodingError) {
        var reader = FieldReader()
        let members = try reader.object(json)
        self.init(
            pool: try reader.optional(members, "pool") { (value, reader) throws(DrawConfigDecodingError) in try PoolConfig(value, &reader) }
                ?? .range(from: 1, to: 500),
            exclude: try reader.optional(members, "exclude") { (value, reader) throws(DrawConfigDecodingError) in
                try reader.array(value) { (element, reader) throws(DrawConfigDecodingError) in
                    if let number = FieldReader.integer(element) { return DrawValue.number(number) }
                    return .name(try reader.string(element))
                }
            } ?? [],
            perStop: try reader.optional(members, "perStop") { (value, reader) throws(DrawConfigDecodingError) in
                if let count = FieldReader.integer(value) { return PerStop.count(Int(count)) }
                guard try reader.string(value) == "all" else { throw reader.failure() }
                return .all
            } ?? .count(1),
            repeats: try reader.optional(members, "repeats") { (value, reader) throws(DrawConfigDecodingError) in try reader.bool(value) } ?? false,
            prizes: try reader.optional(members, "prizes") { (value, reader) throws(DrawConfigDecodingError) in
                try reader.array(value) { (element, reader) throws(DrawConfigDecodingError) in
                    let prize = try reader.object(element)
                    return Prize(name: try reader.required(prize, "name") { (v, r) throws(DrawConfigDecodingError) in try r.string(v) },
                                 count: Int(try reader.required(prize, "count") { (v, r) throws(DrawConfigDecodingError) in try r.integer(v) }),
                                 onlyGroups: try reader.optional(prize, "onlyGroups") { (v, r) throws(DrawConfigDecodingError) in try r.strings(v) },
                                 exceptGroups: try reader.optional(prize, "exceptGroups") { (v, r) throws(DrawConfigDecodingError) in try r.strings(v) },
                                 mode: try reader.optional(prize, "mode") { (v, r) throws(DrawConfigDecodingError) in try r.mode(v) })
                }
            } ?? [],
            prize: Int(try reader.optional(members, "prize") { (value, reader) throws(DrawConfigDecodingError) in try reader.integer(value) } ?? 0),
            // Codes, or `{"code","key"}` when the configure links a draw (the key proves control).
            excludeWinnersOf: try reader.optional(members, "excludeWinnersOf") { (value, reader) throws(DrawConfigDecodingError) in
                try reader.array(value) { (element, reader) throws(DrawConfigDecodingError) in
                    if case .string(let code) = element { return PastDraw(code: code) }
                    let link = try reader.object(element)
                    return PastDraw(code: try reader.required(link, "code") { (v, r) throws(DrawConfigDecodingError) in try r.string(v) },
                                    key: try reader.optional(link, "key") { (v, r) throws(DrawConfigDecodingError) in try r.string(v) })
                }
            } ?? [],
            mode: try reader.optional(members, "mode") { (value, reader) throws(DrawConfigDecodingError) in try reader.mode(value) } ?? .number,
            mask: try reader.optional(members, "mask") { (value, reader) throws(DrawConfigDecodingError) in
                guard let mask = NameMask(rawValue: try reader.string(value)) else { throw reader.failure() }
                return mask
            } ?? NameMask.none,
            claim: try reader.optional(members, "claim") { (value, reader) throws(DrawConfigDecodingError) in
                // `{"seconds":30,"alternates":3}` (either may be left out), or false/null for none.
                if case .bool(false) = value { return nil }
                let claim = try reader.object(value)
                return ClaimSetting(
                    seconds: Int(try reader.optional(claim, "seconds") { (v, r) throws(DrawConfigDecodingError) in try r.integer(v) } ?? 30),
                    alternates: Int(try reader.optional(claim, "alternates") { (v, r) throws(DrawConfigDecodingError) in try r.integer(v) } ?? 3))
            } ?? nil,
            beacon: try reader.optional(members, "beacon") { (value, reader) throws(DrawConfigDecodingError) in try reader.bool(value) } ?? false,
            slowDown: try reader.optional(members, "slowDown") { (value, reader) throws(DrawConfigDecodingError) in
                // Milliseconds, a whole number (its range is checked with the other settings: bad_slow_down).
                guard let ms = Int(exactly: try reader.integer(value)) else { throw reader.failure() }
                return ms
            },
            rehearsal: try reader.optional(members, "rehearsal") { (value, reader) throws(DrawConfigDecodingError) in try reader.bool(value) } ?? false,
            waitlist: try reader.optional(members, "waitlist") { (value, reader) throws(DrawConfigDecodingError) in try reader.bool(value) } ?? false)
        reverse = try reader.optional(members, "reverse") { (value, reader) throws(DrawConfigDecodingError) in try reader.bool(value) } ?? false
        foureyes = try reader.optional(members, "foureyes") { (value, reader) throws(DrawConfigDecodingError) in try reader.bool(value) } ?? false
        retentionDays = try reader.optional(members, "retentionDays") { (value, reader) throws(DrawConfigDecodingError) in
            // Whole days (the range is checked with the other settings: bad_retention).
            guard let days = Int(exactly: try reader.integer(value)) else { throw reader.failure() }
            return days
        }
        let given = try reader.optional(members, "private") { (value, reader) throws(DrawConfigDecodingError) in try reader.bool(value) }
        isPrivate = given ?? false
        privateGiven = given != nil
        // Only in the stored settings (`json`), never in the public ones.
        privateSecret = try reader.optional(members, "privateSecret") { (value, reader) throws(DrawConfigDecodingError) in
            guard let bytes = Hex.decode(try reader.string(value)), bytes.count == 32 else { throw reader.failure() }
            return bytes
        }
    }

    /// The settings with every key, as stored and as `state.config` carries them (canonical
    /// form: sorted keys).
    public var json: JSONValue { json(public: false) }

    /// The settings as pages see them (`state`, `config`): entrant ids left out, and a detailed
    /// list whose entrants all hold one ticket without group written as plain names.
    public var publicJSON: JSONValue { json(public: true) }

    private func json(public: Bool) -> JSONValue {
        let poolJSON: JSONValue
        // A private draw's pages see its entrants as their public ids only (`PrivateEntries`).
        let shown = `public` && isPrivate && poolHasNames ? publicIDs() : { $0 }
        switch pool {
        case .range(let from, let to): poolJSON = .object(["kind": .string("range"), "from": .int(from), "to": .int(to)])
        case .list(let names): poolJSON = .object(["kind": .string("list"), "entrants": .array(names.map { .string(shown($0)) })])
        case .entries(let entrants) where `public` && entrants.allSatisfy({ $0.tickets == 1 && $0.group == nil }):
            poolJSON = .object(["kind": .string("list"), "entrants": .array(entrants.map { .string(shown($0.name)) })])
        case .entries(let entrants):
            poolJSON = .object(["kind": .string("list"), "entrants": .array(entrants.map {
                var entrant = $0
                entrant.name = shown(entrant.name)
                return `public` ? entrant.publicJSON : entrant.json
            })])
        case .books(let books):
            // A handful of books: pages number the tickets themselves (TicketBook.tickets).
            poolJSON = .object(["kind": .string("books"), "books": .array(books.map(\.json))])
        case .checkin(let ids):
            // Pages get the size only: the ids are fetched apart (`GET …/entries/pool`).
            poolJSON = `public` ? .object(["kind": .string("checkin"), "count": .int(Int64(ids.count))])
                : .object(["kind": .string("checkin"), "entrants": .array(ids.map { .string($0) })])
        }
        let perStopJSON: JSONValue
        switch perStop {
        case .count(let count): perStopJSON = .int(Int64(count))
        case .all: perStopJSON = .string("all")
        }
        var members: [String: JSONValue] = [
            "pool": poolJSON,
            "exclude": .array(exclude.map { value in
                if case .name(let name) = value { return DrawValue.name(shown(name)).json }
                return value.json
            }),
            "perStop": perStopJSON,
            "repeats": .bool(repeats),
            "prizes": .array(prizes.map(\.json)),
            "prize": .int(Int64(prize)),
        ]
        if !excludeWinnersOf.isEmpty { members["excludeWinnersOf"] = .array(excludeWinnersOf.map { .string($0.code) }) }
        // Only when set: the settings (and their hash) of a draw that never chose a mode stay as they were.
        if mode != .number { members["mode"] = .string(mode.rawValue) }
        if mask != .none { members["mask"] = .string(mask.rawValue) }
        if let claim { members["claim"] = .object(["seconds": .int(Int64(claim.seconds)), "alternates": .int(Int64(claim.alternates))]) }
        if beacon { members["beacon"] = .bool(true) }
        if let slowDown { members["slowDown"] = .int(Int64(slowDown)) }
        if rehearsal { members["rehearsal"] = .bool(true) }
        if waitlist { members["waitlist"] = .bool(true) }
        if reverse { members["reverse"] = .bool(true) }
        if foureyes { members["foureyes"] = .bool(true) }
        if let retentionDays { members["retentionDays"] = .int(Int64(retentionDays)) }
        if isPrivate { members["private"] = .bool(true) }
        // Said and off: kept, so a configure relayed as JSON (cluster mode) still turns it off.
        if !`public`, privateGiven, !isPrivate { members["private"] = .bool(false) }
        if !`public`, isPrivate, let privateSecret { members["privateSecret"] = .string(Hex.encode(privateSecret)) }
        return .object(members)
    }
}

extension DrawConfig {
    /// A private list's names to public ids: the ids validation made, else made here (one salter
    /// for the list). Without the secret (never on a server: validation makes one), the masked name.
    func publicIDs() -> (String) -> String {
        guard let privateSecret else { return NameMasking.mask }
        let salter = PrivateEntries.Salter(secret: privateSecret)
        let made = privateIDs.map { ids in Dictionary(zip(poolNames, ids), uniquingKeysWith: { a, _ in a }) }
        return { name in made?[name] ?? salter.publicID(name: EntrantList.trim(name)) }
    }

    /// A list pool's names in order (empty for other pools).
    var poolNames: [String] {
        switch pool {
        case .list(let names): names
        case .entries(let entrants): entrants.map(\.name)
        case .range, .books, .checkin: []
        }
    }

    /// Whether the pool is a list of names (plain or detailed): what a private draw hides.
    public var poolHasNames: Bool {
        switch pool {
        case .list, .entries: true
        case .range, .books, .checkin: false
        }
    }
}

extension PoolConfig {
    /// `{"kind":"range","from":1,"to":500}`, `{"kind":"list","entrants":[…]}` or `{"kind":"list","text":"…"}`.
    fileprivate init(_ json: JSONValue, _ reader: inout FieldReader) throws(DrawConfigDecodingError) {
        let members = try reader.object(json)
        let kind = try reader.required(members, "kind") { (v, r) throws(DrawConfigDecodingError) in try r.string(v) }
        switch kind {
        case "range":
            self = .range(from: try reader.required(members, "from") { (v, r) throws(DrawConfigDecodingError) in try r.integer(v) },
                          to: try reader.required(members, "to") { (v, r) throws(DrawConfigDecodingError) in try r.integer(v) })
        case "list":
            // Names, or objects `{"name","id","tickets","group"}` (then a detailed list, `.entries`).
            if let entrants = try reader.optional(members, "entrants", { (value, reader) throws(DrawConfigDecodingError) in
                try reader.array(value) { (element, reader) throws(DrawConfigDecodingError) -> (Entrant, detailed: Bool) in
                    if case .string(let name) = element { return (Entrant(name: name), false) }
                    return (try Entrant(element, &reader), true)
                }
            }) {
                self = entrants.contains(where: \.detailed) ? .entries(entrants.map(\.0)) : .list(entrants.map(\.0.name))
            } else {
                self = .list([try reader.required(members, "text") { (v, r) throws(DrawConfigDecodingError) in try r.string(v) }])
            }
        case "books":
            // `{"kind":"books","books":[{"name":"red","from":1,"to":500,"color":"#c62828"}, …]}`
            self = .books(try reader.required(members, "books") { (value, reader) throws(DrawConfigDecodingError) in
                try reader.array(value) { (element, reader) throws(DrawConfigDecodingError) in
                    let book = try reader.object(element)
                    return TicketBook(name: try reader.required(book, "name") { (v, r) throws(DrawConfigDecodingError) in try r.string(v) },
                                      from: try reader.required(book, "from") { (v, r) throws(DrawConfigDecodingError) in try r.integer(v) },
                                      to: try reader.required(book, "to") { (v, r) throws(DrawConfigDecodingError) in try r.integer(v) },
                                      color: try reader.required(book, "color") { (v, r) throws(DrawConfigDecodingError) in try r.string(v) })
                }
            })
        case "checkin":
            // The ids are the App's to fill in (from its entrant book); a host cannot choose them.
            self = .checkin(try reader.optional(members, "entrants") { (v, r) throws(DrawConfigDecodingError) in try r.strings(v) } ?? [])
        default:
            reader.path.append(.key("kind"))
            throw reader.failure()
        }
    }
}

extension Entrant {
    /// `{"name":"Ann","id":"E17","tickets":3,"group":"Sales"}`; only `name` is required.
    fileprivate init(_ json: JSONValue, _ reader: inout FieldReader) throws(DrawConfigDecodingError) {
        let members = try reader.object(json)
        self.init(name: try reader.required(members, "name") { (v, r) throws(DrawConfigDecodingError) in try r.string(v) },
                  id: try reader.optional(members, "id") { (v, r) throws(DrawConfigDecodingError) in try r.string(v) },
                  tickets: Int(try reader.optional(members, "tickets") { (v, r) throws(DrawConfigDecodingError) in try r.integer(v) } ?? 1),
                  group: try reader.optional(members, "group") { (v, r) throws(DrawConfigDecodingError) in try r.string(v) })
    }

    /// As stored: `name` and `tickets` always, `id` and `group` when present.
    var json: JSONValue {
        var members: [String: JSONValue] = ["name": .string(name), "tickets": .int(Int64(tickets))]
        if let id { members["id"] = .string(id) }
        if let group { members["group"] = .string(group) }
        return .object(members)
    }

    /// As pages see it: without `id`.
    var publicJSON: JSONValue {
        var members: [String: JSONValue] = ["name": .string(name), "tickets": .int(Int64(tickets))]
        if let group { members["group"] = .string(group) }
        return .object(members)
    }
}

extension Prize {
    /// `{"name","count"}`, with `onlyGroups`/`exceptGroups` when set.
    var json: JSONValue {
        var members: [String: JSONValue] = ["name": .string(name), "count": .int(Int64(count))]
        if let onlyGroups { members["onlyGroups"] = .array(onlyGroups.map { .string($0) }) }
        if let exceptGroups { members["exceptGroups"] = .array(exceptGroups.map { .string($0) }) }
        if let mode { members["mode"] = .string(mode.rawValue) }
        return .object(members)
    }
}

/// Reads typed fields out of JSON values, keeping the path of the field being read (text is
/// made only on failure: a list of 100,000 entrants must not make 100,000 path strings).
struct FieldReader {
    enum Component {
        case key(String)
        case index(Int)
    }

    var path: [Component] = []

    func failure() -> DrawConfigDecodingError { DrawConfigDecodingError(path) }

    func object(_ value: JSONValue) throws(DrawConfigDecodingError) -> [String: JSONValue] {
        guard case .object(let members) = value else { throw failure() }
        return members
    }

    func string(_ value: JSONValue) throws(DrawConfigDecodingError) -> String {
        guard case .string(let text) = value else { throw failure() }
        return text
    }

    mutating func strings(_ value: JSONValue) throws(DrawConfigDecodingError) -> [String] {
        try array(value) { (element, reader) throws(DrawConfigDecodingError) in try reader.string(element) }
    }

    /// A display mode's name (`number`, `reels`, `wheel`, `names`).
    func mode(_ value: JSONValue) throws(DrawConfigDecodingError) -> DisplayMode {
        guard let mode = DisplayMode(rawValue: try string(value)) else { throw failure() }
        return mode
    }

    func bool(_ value: JSONValue) throws(DrawConfigDecodingError) -> Bool {
        guard case .bool(let flag) = value else { throw failure() }
        return flag
    }

    func integer(_ value: JSONValue) throws(DrawConfigDecodingError) -> Int64 {
        guard let number = Self.integer(value) else { throw failure() }
        return number
    }

    /// An integer, also when written with a zero fraction (`5.0`).
    static func integer(_ value: JSONValue) -> Int64? {
        switch value {
        case .int(let number): return number
        case .double(let number): return Int64(exactly: number)
        default: return nil
        }
    }

    mutating func array<T>(_ value: JSONValue, _ element: (JSONValue, inout FieldReader) throws(DrawConfigDecodingError) -> T) throws(DrawConfigDecodingError) -> [T] {
        guard case .array(let items) = value else { throw failure() }
        var out: [T] = []
        out.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            path.append(.index(index))
            out.append(try element(item, &self))
            path.removeLast()
        }
        return out
    }

    /// The field `key`, or nil when it is missing or null.
    mutating func optional<T>(_ members: [String: JSONValue], _ key: String,
                              _ read: (JSONValue, inout FieldReader) throws(DrawConfigDecodingError) -> T) throws(DrawConfigDecodingError) -> T? {
        guard let value = members[key], !value.isNull else { return nil }
        path.append(.key(key))
        let result = try read(value, &self)
        path.removeLast()
        return result
    }

    mutating func required<T>(_ members: [String: JSONValue], _ key: String,
                              _ read: (JSONValue, inout FieldReader) throws(DrawConfigDecodingError) -> T) throws(DrawConfigDecodingError) -> T {
        path.append(.key(key))
        guard let value = members[key], !value.isNull else { throw failure() }
        let result = try read(value, &self)
        path.removeLast()
        return result
    }
}
