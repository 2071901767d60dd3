@testable import DrawEngine
import JSON
import Testing

/// The entry tree of docs/FAIRNESS.md §3 against vectors computed independently in Python with
/// RFC 6962's recursive definition (MTH(D) = node(MTH(D[0:k]), MTH(D[k:n])), k the largest power of 2 < n).
@Suite struct EntryTreeTests {
    static let names = ["Ann", "Zoë", "李雷", "\"Q\" \\ Smith", "Bob", "Eve", "Finn"]

    static func leaves(_ n: Int) -> [[UInt8]] {
        (0..<n).map { EntryTree.leafHash(position: $0, name: names[$0], tickets: UInt64($0 + 1), group: $0 % 2 == 1 ? "IT" : "") }
    }

    @Test func leafEncodingIsCanonicalJSONAfterAZeroByte() {
        #expect(String(decoding: EntryTree.leafData(position: 0, name: "Ann", tickets: 1, group: ""), as: UTF8.self)
                == #"{"group":"","name":"Ann","position":0,"tickets":1}"#)
        #expect(Hex.encode(Self.leaves(1)[0]) == "6e05292efd1639be1e1b3a7e21a104bf41965951897ce7954812dd033c215d06")
    }

    /// The leaf bytes are written directly (no JSON object per entry): they must equal
    /// `canon` of the object, byte for byte, for every name a list may hold.
    @Test func theDirectLeafEncodingEqualsCanonicalJSON() {
        let names = ["Ann", "\"Q\" \\ Smith", "tab\there", "new\nline", "\u{1}\u{1f}\u{7f}", "Zoë", "李雷", "👩🏽‍💻 Dev", "e\u{301}", "</script>", ""]
        let groups = ["", "IT", "研发", "a\"b", "x\\y"]
        for (i, name) in names.enumerated() {
            for (tickets, group) in zip([1, 3, 1_000_000, 0, UInt64(Int64.max)], groups) {
                let object: JSONValue = .object(["position": .int(Int64(i * 99_991)), "name": .string(name), "tickets": .int(Int64(tickets)),
                                                 "group": .string(group)])
                #expect(EntryTree.leafData(position: i * 99_991, name: name, tickets: tickets, group: group) == object.canonicalBytes)
                #expect(EntryTree.leafHash(position: i * 99_991, name: name, tickets: tickets, group: group)
                        == Hashing.sha256([0] + object.canonicalBytes))
            }
        }
        // The list's leaves (one shared buffer) are the one-entry hashes at their positions.
        let tickets = names.indices.map { UInt64($0 % 3 + 1) }
        let listGroups = names.indices.map { groups[$0 % groups.count] }
        #expect(EntryTree.leaves(names: names, tickets: tickets, groups: listGroups)
                == names.indices.map { EntryTree.leafHash(position: $0, name: names[$0], tickets: tickets[$0], group: listGroups[$0]) })
    }

    @Test(arguments: [
        (1, "6e05292efd1639be1e1b3a7e21a104bf41965951897ce7954812dd033c215d06"),
        (2, "b989799d73630a96e3a1187fdae942797524b8acb7d37ad1e2fb4b13e23935ea"),
        (3, "eb445894fb6763c283af3753d31e3523744491dabc9e22e9e7b20a66bbb4285c"),
        (5, "087bc9b243bab400c8c86746fe6c2078bf1eff20b4e0b4ed3e3dbe219028b0dd"),
        (7, "fdc0ec8849089af80630b5f0fc15557a1ddc1769331baffa2a1018fb0e2d5656"),
    ])
    func rootsMatchThePythonVectors(size: Int, root: String) {
        #expect(EntryTree.root(Self.leaves(size)) == root)
    }

    @Test func pathsMatchThePythonVectorsAndVerify() {
        let leaves = Self.leaves(7)
        let root = Hex.decode(EntryTree.root(leaves))!
        #expect(EntryTree.path(leaves, index: 6).map(Hex.encode) == [
            "0d307f5966fef34bbe87a651598f7e4ee144b30c3a8f152e90c189722fa8c595",
            "f76683e89b6685d93514a6db5f9f5b505e6e7376e406ab760f71baf81b178931",
        ])
        #expect(EntryTree.path(leaves, index: 4).map(Hex.encode) == [
            "af7fcaa459c178879b6f7f9a7b0f3f06640fe1985f41b9fde87ab33836e7a364",
            "0881fa2e0242a6045a9f720a26e2bd4d2e9c52a31896e4a7f76990056f2e5906",
            "f76683e89b6685d93514a6db5f9f5b505e6e7376e406ab760f71baf81b178931",
        ])
        for size in 1...7 {
            let some = Array(leaves.prefix(size))
            let top = Hex.decode(EntryTree.root(some))!
            for i in 0..<size {
                let path = EntryTree.path(some, index: i)
                #expect(EntryTree.verify(leaf: some[i], index: i, size: size, path: path, root: top))
                // Another position, a size the path is too short or too long for, a changed sibling or
                // leaf: refused. (A left-subtree path can also fit a larger size: the size is bound by
                // the pool's `count`, which the proof check compares.)
                #expect(!EntryTree.verify(leaf: some[i], index: i, size: 2 * size, path: path, root: top) || size == 1)
                #expect(!EntryTree.verify(leaf: some[i], index: i, size: size, path: path + [some[0]], root: top))
                if size > 1 {
                    #expect(!EntryTree.verify(leaf: some[i], index: (i + 1) % size, size: size, path: path, root: top))
                    var bent = path
                    bent[0][0] ^= 1
                    #expect(!EntryTree.verify(leaf: some[i], index: i, size: size, path: bent, root: top))
                }
                #expect(!EntryTree.verify(leaf: Hashing.sha256([9]), index: i, size: size, path: path, root: top))
            }
        }
        #expect(EntryTree.verify(leaf: leaves[0], index: 0, size: 1, path: [], root: leaves[0]))
        #expect(!EntryTree.verify(leaf: leaves[0], index: 0, size: 1, path: [leaves[1]], root: leaves[0]))
        _ = root
    }

    @Test func aHundredThousandEntries() {
        let leaves = (0..<100_000).map { EntryTree.leafHash(position: $0, name: "E\($0)", tickets: 1, group: "") }
        let root = EntryTree.root(leaves)
        #expect(root == "b0e105b3b78adc46c23a43fafe709e45dbf62d042a632468d81e17fe3f6a4032")
        let path = EntryTree.path(leaves, index: 99_999)
        #expect(path.count == 10 && Hex.encode(path[0]).hasPrefix("af29fca429235ee1") && Hex.encode(path[9]).hasPrefix("91ffe6c75359fc80"))
        for i in [0, 1, 65_535, 65_536, 99_998, 99_999] {
            #expect(EntryTree.verify(leaf: leaves[i], index: i, size: leaves.count, path: EntryTree.path(leaves, index: i),
                                     root: Hex.decode(root)!))
        }
    }
}

/// The `lock` record (export format v2, docs/FAIRNESS.md §8) and the verifier's step 7.
@Suite struct LockRecordTests {
    /// A list draw with a host exclusion and two prizes: rounds of 2, then 1 (the prize's last).
    static func harness() throws -> Harness {
        var harness = try Harness(DrawConfig(pool: .list(["Ann", "Bob", "Cy", "Dee", "Eve", "Finn"]), exclude: [.name("Bob")],
                                             perStop: .count(2), prizes: [Prize(name: "Mug", count: 3)]), seed: 41)
        try harness.round()
        try harness.round()
        return harness
    }

    @Test func eachRoundFollowsItsLock() throws {
        let harness = try Self.harness()
        let kinds = harness.records.map(\.kind)
        #expect(kinds == ["commit", "entrants", "lock", "round", "commit", "lock", "round", "commit"])
        guard case .lock(let lock) = harness.records[5].body, case .round(let round) = harness.records[6].body else {
            Issue.record("no lock"); return
        }
        #expect(lock.poolHash == round.poolHash && lock.commitment == round.commitment && lock.hostExcluded == [1])
        #expect(lock.plan == LockPlan(count: 1, perStop: 2, prizeCount: 3, prizeLeft: 1))
        #expect(lock.root == EntryTree.root(names: ["Ann", "Bob", "Cy", "Dee", "Eve", "Finn"], tickets: nil, groups: nil))
        let report = RoundVerifier.verify(records: harness.records.map(\.json))
        #expect(report.passed && report.checks.allSatisfy { $0.notes.isEmpty })
        // Restoring reads lock records back.
        let restored = try Draw(config: harness.draw.config, restoring: harness.records)
        #expect(restored.board.count == 2)
    }

    static func forged(_ change: (inout [String: JSONValue], inout [String: JSONValue]) -> Void) throws -> [RecordCheck] {
        let harness = try harness()
        var records = harness.records.map(\.json)
        var lock = records[5].objectValue!, round = records[6].objectValue!
        change(&lock, &round)
        records[5] = .object(lock)
        records[6] = .object(round)
        relink(&records)
        return RoundVerifier.verify(records: records).checks.filter { !$0.ok }
    }

    /// Numbers and re-hashes the records so the chain links again.
    static func relink(_ records: inout [JSONValue]) {
        var prev = DrawRecord.genesisPrev
        for i in records.indices {
            var members = records[i].objectValue!
            members["index"] = .int(Int64(i))
            members["prev"] = .string(prev)
            members["hash"] = nil
            let hash = Hashing.sha256Hex(JSONValue.object(members).canonicalBytes)
            members["hash"] = .string(hash)
            records[i] = .object(members)
            prev = hash
        }
    }

    @Test func aForgedPoolHashIsRefused() throws {
        let failed = try Self.forged { lock, _ in lock["poolHash"] = .string(String(repeating: "ab", count: 32)) }
        #expect(failed.first?.problem == LockCheck.lockMismatch && failed.first?.index == 6)
    }

    @Test func anUnexplainedExclusionIsRefused() throws {
        let failed = try Self.forged { lock, _ in lock["excluded"] = .array([]) }
        #expect(failed.first?.problem == LockCheck.unexplained)
        let outside = try Self.forged { lock, _ in
            lock["excluded"] = .array([.object(["why": .string("host"), "removed": .array([.int(1), .int(9)])])])
        }
        #expect(outside.first?.problem == LockCheck.hostExcluded)
        let unknownWhy = try Self.forged { lock, _ in
            lock["excluded"] = .array([.object(["why": .string("mood"), "removed": .array([.int(1)])])])
        }
        #expect(unknownWhy.first?.problem == "bad field lock")
    }

    @Test func aWrongKIsRefused() throws {
        let more = try Self.forged { lock, _ in lock["plan"] = LockPlan(count: 1, perStop: 1, prizeCount: 3, prizeLeft: 1).json }
        #expect(more.isEmpty)  // min(1, 1, n) is still 1
        let wrong = try Self.forged { lock, _ in lock["plan"] = LockPlan(count: 2, perStop: 2, prizeCount: 3, prizeLeft: 1).json }
        #expect(wrong.first?.problem == LockCheck.plan)
        let left = try Self.forged { lock, _ in lock["plan"] = LockPlan(count: 1, perStop: 2, prizeCount: 4, prizeLeft: 1).json }
        #expect(left.first?.problem == LockCheck.prizeLeft)
    }

    @Test func aStrippedLockIsRefusedOnceTheChainHasLocks() throws {
        var records = try Self.harness().records.map(\.json)
        records.remove(at: 5)
        Self.relink(&records)
        let failed = RoundVerifier.verify(records: records).checks.filter { !$0.ok }
        #expect(failed.first?.problem == LockCheck.roundWithoutLock)
    }

    @Test func anEntryProofChecksAndNamesItsProblems() throws {
        let harness = try Self.harness()
        let proof = try EntryProof.proof(records: harness.records, round: 2, entry: " Dee ")
        #expect(EntryProof.problem(proof) == nil)
        #expect(proof["entry"]?["position"]?.intValue == 3 && proof["entry"]?["tickets"]?.intValue == 1)
        let bob = try EntryProof.proof(records: harness.records, round: 1, entry: "Bob")
        #expect(bob["inPool"]?.boolValue == false)
        #expect(EntryProof.check(proof, against: harness.records.map(\.json)).ok)
        var members = proof.objectValue!
        var entry = members["entry"]!.objectValue!
        entry["tickets"] = .int(5)
        members["entry"] = .object(entry)
        members["leaf"] = .string(Hex.encode(EntryTree.leafHash(position: 3, name: "Dee", tickets: 5, group: "")))
        #expect(EntryProof.problem(.object(members)) == "path")
        #expect(throws: EntryProof.Failure.unknownEntry) { try EntryProof.proof(records: harness.records, round: 1, entry: "Mallory") }
        #expect(throws: EntryProof.Failure.unknownRound) { try EntryProof.proof(records: harness.records, round: 3, entry: "Ann") }
        var range = try Harness(seed: 3)
        try range.round()
        #expect(throws: EntryProof.Failure.notAList) { try EntryProof.proof(records: range.records, round: 1, entry: "1") }
    }

    /// A beacon-sealed round's lock sits before its beacon records (lock, beacon, beaconVoid,
    /// beacon, beaconValue, round): its entrants get their proof from it too.
    @Test func aSealedRoundsEntriesHaveTheirProof() throws {
        let records = try #require(try JSONValue.parse(SampleDraw.beaconExport())["records"]?.arrayValue)
            .map { record throws(RecordError) in try DrawRecord(json: record) }
        let proof = try EntryProof.proof(records: records, round: 2, entry: "Ann")
        let lockIndex = try #require(proof["lock"]?["index"]?.intValue)
        #expect(records[Int(lockIndex)].kind == "lock" && records[Int(lockIndex) + 1].kind == "beacon")
        #expect(EntryProof.problem(proof) == nil)
        #expect(EntryProof.check(proof, against: records.map(\.json)).ok)
    }
}
