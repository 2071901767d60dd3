import JSON

/// One entrant's proof that its entry was in a round's locked pool (docs/FAIRNESS.md §3, "The
/// entry tree"; `GET /api/draws/<code>/rounds/<n>/proof?entry=…`): its leaf, the audit path to
/// the root in the round's `lock` record, the lock record itself and the round's pool object
/// (whose `removed` says whether the entry could win).
public enum EntryProof {
    public enum Failure: Error, Equatable, Sendable {
        /// No round n in the chain (`unknown_round`, 404).
        case unknownRound
        /// Round n draws from a range: there are no entries (`not_a_list`, 400).
        case notAList
        /// Round n was drawn before lock records existed (`no_lock`, 404).
        case noLock
        /// No entry of that public id or name in the round's list (`unknown_entry`, 404).
        case unknownEntry

        public var code: String {
            switch self {
            case .unknownRound: "unknown_round"
            case .notAList: "not_a_list"
            case .noLock: "no_lock"
            case .unknownEntry: "unknown_entry"
            }
        }
    }

    /// The proof for `entry` (a public id, or a name of a list pool: whatever the chain's list holds,
    /// compared as UTF-8 bytes after trimming) in round `round`'s first draw (not its replacements).
    public static func proof(records: [DrawRecord], round: Int, entry: String) throws(Failure) -> JSONValue {
        try Round(records: records, round: round).proof(entry: entry)
    }

    /// One round's list and entry tree, built once from the chain: it proves any entry of the
    /// round without the chain (an `EntryProofCache` keeps it for the phones that ask next).
    public struct Round: Sendable {
        public let round: Int
        let names: [String]
        let tickets: [UInt64]?
        let groups: [String]?
        /// Every position of each name (Swift's `String` equality is canonical equivalence:
        /// the positions of every name equal in that sense, checked byte for byte in `proof`).
        let positions: [String: [Int]]
        let levels: [[UInt8]]
        let removed: [Int64]
        let root: String
        let lock: JSONValue
        let pool: JSONValue
        let roundHash: String

        /// The entries the tree holds (what a cache weighs it by).
        public var size: Int { names.count }

        public init(records: [DrawRecord], round: Int) throws(Failure) {
            guard let at = records.firstIndex(where: {
                if case .round(let r) = $0.body { return r.round == round && r.replaces == nil }
                return false
            }), case .round(let drawn) = records[at].body else { throw .unknownRound }
            guard case .list(let count, let hash, let removed, _, _) = drawn.pool else { throw .notAList }
            // The round's lock: right before it, or (a beacon-sealed round, docs/FAIRNESS.md §13) before its beacon records.
            var lockAt = at - 1
            while lockAt > 0, ["beacon", "beaconValue", "beaconVoid"].contains(records[lockAt].kind) { lockAt -= 1 }
            guard lockAt >= 0, case .lock(let lock) = records[lockAt].body, lock.round == round, let root = lock.root else { throw .noLock }
            var list: (names: [String], tickets: [UInt64]?, groups: [String]?)?
            for record in records[..<at] {
                if case .entrants(let listHash, let names, let tickets, let groups, _) = record.body, listHash == hash {
                    list = (names, tickets, groups)
                }
            }
            guard let list, list.names.count == count else { throw .noLock }
            self.round = round
            (names, tickets, groups) = list
            var positions = [String: [Int]](minimumCapacity: list.names.count)
            for (i, name) in list.names.enumerated() { positions[name, default: []].append(i) }
            self.positions = positions
            levels = EntryTree.levels(EntryTree.leaves(names: list.names, tickets: list.tickets, groups: list.groups))
            self.removed = removed
            self.root = root
            self.lock = records[lockAt].json
            pool = drawn.pool.json
            roundHash = records[at].hash
        }

        public func proof(entry: String) throws(Failure) -> JSONValue {
            let wanted = EntrantList.trim(entry)
            guard let position = positions[wanted]?.first(where: { names[$0].utf8.elementsEqual(wanted.utf8) }) else {
                throw .unknownEntry
            }
            let tickets = tickets?[position] ?? 1
            let group = groups?[position] ?? ""
            return .object([
                "round": .int(Int64(round)),
                "entry": .object(["position": .int(Int64(position)), "name": .string(names[position]),
                                  "tickets": .int(Int64(tickets)), "group": .string(group)]),
                "leaf": .string(Hex.encode(Array(levels[0][position * 32 ..< (position + 1) * 32]))),
                "path": .array(EntryTree.path(levels: levels, index: position).map { .string(Hex.encode($0)) }),
                "size": .int(Int64(names.count)),
                "root": .string(root),
                "inPool": .bool(!RoundRules.sortedContains(removed, Int64(position))),
                "lock": lock,
                "pool": pool,
                "roundHash": .string(roundHash),
            ])
        }
    }

    /// Checks a proof object as a phone does (docs/FAIRNESS.md §3): the leaf recomputes from the
    /// entry, the path leads to the lock's root, the lock record hashes to its `hash`, the pool
    /// hashes to the lock's `poolHash` and names its list. Returns nil or the first problem.
    public static func problem(_ proof: JSONValue) -> String? {
        guard let entry = proof["entry"], let position = entry["position"]?.intValue.flatMap({ Int(exactly: $0) }),
              let name = entry["name"]?.stringValue, let tickets = entry["tickets"]?.intValue, tickets >= 1,
              let group = entry["group"]?.stringValue, let size = proof["size"]?.intValue.flatMap({ Int(exactly: $0) }),
              let lockJSON = proof["lock"], let pool = proof["pool"], let pathItems = proof["path"]?.arrayValue
        else { return "malformed proof" }
        let leaf = EntryTree.leafHash(position: position, name: name, tickets: UInt64(tickets), group: group)
        guard Hex.encode(leaf) == proof["leaf"]?.stringValue else { return "leaf" }
        guard let lock = try? DrawRecord(json: lockJSON), lock.computedHash == lock.hash,
              case .lock(let body) = lock.body, let root = body.root.flatMap(Hex.decode) else { return "lock record" }
        var path = [[UInt8]]()
        for item in pathItems {
            guard let text = item.stringValue, Hex.isLowercase(text, byteCount: 32), let bytes = Hex.decode(text) else { return "path" }
            path.append(bytes)
        }
        guard EntryTree.verify(leaf: leaf, index: position, size: size, path: path, root: root) else { return "path" }
        guard Hashing.sha256Hex(pool.canonicalBytes) == body.poolHash, pool["entrants"]?.stringValue == body.entrantsHash,
              pool["count"]?.intValue == Int64(size) else { return "pool" }
        return nil
    }
}

extension EntryProof {
    /// `tombola verify EXPORT --proof PROOF.json`: `problem(_:)`, and the proof's lock record is
    /// the export's record at its index, and `inPool` tells the truth. Returns the line to print.
    public static func check(_ proof: JSONValue, against records: [JSONValue]) -> (ok: Bool, line: String) {
        let round = proof["round"]?.intValue.map(String.init) ?? "?"
        if let problem = problem(proof) { return (false, "proof round \(round): FAIL: \(problem)") }
        let lock = proof["lock"]!
        guard let index = lock["index"]?.intValue.flatMap({ Int(exactly: $0) }), records.indices.contains(index),
              records[index]["hash"]?.stringValue == lock["hash"]?.stringValue else {
            return (false, "proof round \(round): FAIL: lock not in the export")
        }
        let entry = proof["entry"]!
        let position = entry["position"]!.intValue!
        let removed = proof["pool"]?["removed"]?.arrayValue?.compactMap(\.intValue) ?? []
        guard let inPool = proof["inPool"]?.boolValue, inPool == !removed.contains(position) else {
            return (false, "proof round \(round): FAIL: inPool")
        }
        let name = JSONValue.string(entry["name"]!.stringValue!).canonicalString
        return (true, "proof round \(round): OK: entry \(name) (\(entry["tickets"]!.intValue!) tickets) "
                + (inPool ? "is in the locked pool" : "was removed from the pool"))
    }

    /// `tombola verify EXPORT --all-entries`: for every `lock` of a list, every entry's audit path
    /// leads to its root. One line per lock (`#i entries: N paths OK`).
    public static func checkAllEntries(_ records: [JSONValue]) -> (ok: Bool, lines: [String]) {
        var lists = [String: [[UInt8]]]()
        var ok = true
        var lines = [String]()
        for (i, json) in records.enumerated() {
            guard let record = try? DrawRecord(json: json) else { continue }
            switch record.body {
            case .entrants(let hash, let names, let tickets, let groups, _):
                lists[hash] = EntryTree.leaves(names: names, tickets: tickets, groups: groups)
            case .lock(let lock):
                guard let hash = lock.entrantsHash, let leaves = lists[hash], let root = lock.root.flatMap(Hex.decode) else { continue }
                let levels = EntryTree.levels(leaves)
                let good = leaves.indices.allSatisfy {
                    EntryTree.verify(leaf: leaves[$0], index: $0, size: leaves.count, path: EntryTree.path(levels: levels, index: $0), root: root)
                }
                ok = ok && good
                lines.append("#\(i) entries: " + (good ? "\(leaves.count) paths OK" : "FAIL: a path does not lead to the root"))
            default:
                break
            }
        }
        return (ok, lines)
    }
}
