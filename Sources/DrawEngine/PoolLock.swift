import JSON

/// The groups a round's prize is limited to (`onlyGroups`, empty: all) or closed to (`exceptGroups`),
/// sorted bytewise; in the pool object only when the prize has them (docs/FAIRNESS.md §3).
public struct GroupFilter: Sendable, Equatable {
    public let only: [String]
    public let except: [String]

    public init(only: [String], except: [String]) {
        self.only = only
        self.except = except
    }

    public func admits(_ group: String) -> Bool {
        func listed(_ names: [String]) -> Bool { names.contains { $0.utf8.elementsEqual(group.utf8) } }
        return (only.isEmpty || listed(only)) && !listed(except)
    }
}

/// The entrants a round left out because they won another draw (`excludeWinnersOf`): that
/// draw's code, its chain as it stood at Start (`head`, the hash of its latest record, and
/// `records`, how many it had), and the indices of this list it removed (docs/FAIRNESS.md §3).
public struct PastExclusion: Sendable, Equatable {
    public let code: String
    public let head: String
    public let records: Int
    public let removed: [Int64]

    public init(code: String, head: String, records: Int, removed: [Int64]) {
        self.code = code
        self.head = head
        self.records = records
        self.removed = removed
    }

    var json: JSONValue {
        .object(["code": .string(code), "head": .string(head), "records": .int(Int64(records)),
                 "removed": .array(removed.map { .int($0) })])
    }

    init?(json: JSONValue) {
        guard let code = json["code"]?.stringValue, let head = json["head"]?.stringValue,
              let records = json["records"]?.intValue, records >= 0, records <= Int64(Int32.max),
              let items = json["removed"]?.arrayValue else { return nil }
        var removed = [Int64]()
        for item in items {
            guard let value = item.intValue else { return nil }
            removed.append(value)
        }
        self.init(code: code, head: head, records: Int(records), removed: removed)
    }
}

/// The pool object of docs/FAIRNESS.md §3 (what `poolHash` covers) and its eligible array.
public enum PoolSpec: Sendable, Equatable {
    /// `removed` holds values inside from…to, sorted and distinct.
    case range(from: Int64, to: Int64, removed: [Int64])
    /// `removed` holds indices into the entrant list, sorted and distinct; `groups` is the
    /// prize's group filter (its ineligible entrants are in `removed`); `past` the winners of
    /// other draws left out (also in `removed`).
    case list(count: Int, entrantsHash: String, removed: [Int64], groups: GroupFilter? = nil, past: [PastExclusion] = [])

    public var json: JSONValue {
        switch self {
        case .range(let from, let to, let removed):
            return .object(["kind": .string("range"), "from": .int(from), "to": .int(to), "removed": .array(removed.map { .int($0) })])
        case .list(let count, let hash, let removed, let groups, let past):
            var members: [String: JSONValue] = ["kind": .string("list"), "count": .int(Int64(count)), "entrants": .string(hash),
                                                "removed": .array(removed.map { .int($0) })]
            if let groups {
                if !groups.only.isEmpty { members["onlyGroups"] = .array(groups.only.map { .string($0) }) }
                if !groups.except.isEmpty { members["exceptGroups"] = .array(groups.except.map { .string($0) }) }
            }
            if !past.isEmpty { members["pastWinners"] = .array(past.map(\.json)) }
            return .object(members)
        }
    }

    public init?(json: JSONValue) {
        guard let kind = json["kind"]?.stringValue, let removedItems = json["removed"]?.arrayValue else { return nil }
        var removed = [Int64]()
        for item in removedItems {
            guard let value = item.intValue else { return nil }
            removed.append(value)
        }
        switch kind {
        case "range":
            guard let from = json["from"]?.intValue, let to = json["to"]?.intValue else { return nil }
            self = .range(from: from, to: to, removed: removed)
        case "list":
            guard let count = json["count"]?.intValue, let hash = json["entrants"]?.stringValue,
                  count >= 0, count <= Int64(Int32.max) else { return nil }
            func names(_ key: String) -> [String]?? {
                guard let value = json[key] else { return .some(nil) }
                guard let items = value.arrayValue, !items.isEmpty else { return nil }
                let strings = items.compactMap(\.stringValue)
                return strings.count == items.count ? .some(strings) : nil
            }
            guard let only = names("onlyGroups"), let except = names("exceptGroups") else { return nil }
            let groups = only == nil && except == nil ? nil : GroupFilter(only: only ?? [], except: except ?? [])
            var past = [PastExclusion]()
            if let value = json["pastWinners"] {
                guard let items = value.arrayValue, !items.isEmpty else { return nil }
                for item in items {
                    guard let exclusion = PastExclusion(json: item) else { return nil }
                    past.append(exclusion)
                }
            }
            self = .list(count: Int(count), entrantsHash: hash, removed: removed, groups: groups, past: past)
        default: return nil
        }
    }

    /// `hex(SHA256(canon(pool)))`.
    public var poolHash: String { Hashing.sha256Hex(json.canonicalBytes) }
}

/// The eligible array E, never materialised: `element(at:)` maps a position to its entrant.
struct EligiblePool {
    enum Base {
        case range(from: Int64, size: UInt64)
        case list([String])
    }

    let base: Base
    /// Removed base indices, sorted and distinct.
    let removedIndices: [UInt64]
    /// g_j = d_j − j, nondecreasing.
    private let gaps: [UInt64]

    /// nil when `removed` is not sorted, distinct and inside the base (or the list is missing).
    init?(spec: PoolSpec, entrants: [String]?) {
        var indices = [UInt64]()
        switch spec {
        case .range(let from, let to, let removed):
            let difference = UInt64(bitPattern: to &- from)  // exact when from ≤ to
            guard from <= to, difference < UInt64.max else { return nil }
            base = .range(from: from, size: difference + 1)
            for value in removed {
                guard value >= from, value <= to else { return nil }
                indices.append(UInt64(bitPattern: value &- from))
            }
        case .list(let count, _, let removed, _, _):
            guard let entrants, entrants.count == count else { return nil }
            base = .list(entrants)
            for index in removed {
                guard index >= 0, index < count else { return nil }
                indices.append(UInt64(index))
            }
        }
        for k in indices.indices.dropFirst() where indices[k - 1] >= indices[k] { return nil }
        removedIndices = indices
        gaps = indices.enumerated().map { $0.element - UInt64($0.offset) }
    }

    var size: UInt64 {
        switch base {
        case .range(_, let size): size
        case .list(let names): UInt64(names.count)
        }
    }

    var count: UInt64 { size - UInt64(removedIndices.count) }

    /// Base indices of the eligible array, in order (E[p] = B[indices[p]]); for lists only.
    func eligibleIndices() -> [Int] {
        var out = [Int]()
        out.reserveCapacity(Int(count))
        var next = 0
        for index in 0..<Int(size) {
            if next < removedIndices.count, removedIndices[next] == UInt64(index) {
                next += 1
            } else {
                out.append(index)
            }
        }
        return out
    }

    func element(at position: UInt64) -> DrawValue {
        // Number of g_j ≤ position (bisect_right).
        var low = 0, high = gaps.count
        while low < high {
            let mid = (low + high) / 2
            if gaps[mid] <= position { low = mid + 1 } else { high = mid }
        }
        let index = position + UInt64(low)
        switch base {
        case .range(let from, _): return .number(Int64(bitPattern: UInt64(bitPattern: from) &+ index))
        case .list(let names): return .name(names[Int(index)])
        }
    }
}
