/// One entry of a draw's append-only record chain; the engine's record as opaque JSON.
public struct RecordRow: Sendable, Hashable {
    /// `prevHash` of the first entry of every chain (docs/FAIRNESS.md §8).
    public static let genesisHash = String(repeating: "0", count: 64)

    public var drawCode: String
    /// 0, 1, 2, … per draw.
    public var index: Int
    public var round: Int
    /// The record kind (`round`, `void`, `commit`, …).
    public var kind: String
    public var json: String
    public var hash: String
    public var prevHash: String
    public var createdAt: Double
    /// The server's signature of `hash` and its key's fingerprint (hex); nil before signing (issue #47).
    public var signature: String? = nil
    public var signatureKey: String? = nil

    public init(drawCode: String, index: Int, round: Int, kind: String, json: String, hash: String,
                prevHash: String, createdAt: Double) {
        self.drawCode = drawCode
        self.index = index
        self.round = round
        self.kind = kind
        self.json = json
        self.hash = hash
        self.prevHash = prevHash
        self.createdAt = createdAt
    }
}

extension Database {
    /// Appends (and syncs) a record. Refuses with `.chainConflict` unless `index` is the
    /// chain's length and `prevHash` is the last record's hash (`RecordRow.genesisHash` for
    /// index 0), so a forked or re-rolled history can never be written. `.notFound` for an
    /// unknown draw.
    public func appendRecord(_ row: RecordRow) throws(StorageError) {
        try storageTransaction { () throws(StorageError) in
            guard try integer("SELECT count(*) FROM draws WHERE code = ?", [.text(row.drawCode)]) == 1 else {
                throw StorageError(.notFound, detail: "no such draw")
            }
            let last = try statement("""
                SELECT idx, hash FROM records WHERE draw_code = ? ORDER BY idx DESC LIMIT 1
                """).query([.text(row.drawCode)]) { (index: $0.int(0), hash: $0.text(1)) }.first
            try Self.checkLink(index: row.index, prevHash: row.prevHash, last: last)
            try statement("""
                INSERT INTO records (draw_code, idx, round, kind, json, hash, prev_hash, created_at, signature, signature_key)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).run([.text(row.drawCode), .integer(row.index), .integer(row.round), .text(row.kind),
                          .text(row.json), .text(row.hash), .text(row.prevHash), .real(row.createdAt),
                          row.signature.map { .text($0) } ?? .null, row.signatureKey.map { .text($0) } ?? .null])
        }
    }

    /// A draw's records in chain order.
    public func loadRecords(drawCode: String) throws(StorageError) -> [RecordRow] {
        try statement("""
            SELECT draw_code, idx, round, kind, json, hash, prev_hash, created_at, signature, signature_key
            FROM records WHERE draw_code = ? ORDER BY idx
            """).query([.text(drawCode)]) { s in
            var row = RecordRow(drawCode: s.text(0), index: s.int(1), round: s.int(2), kind: s.text(3), json: s.text(4),
                                hash: s.text(5), prevHash: s.text(6), createdAt: s.double(7))
            row.signature = s.isNull(8) ? nil : s.text(8)
            row.signatureKey = s.isNull(9) ? nil : s.text(9)
            return row
        }
    }

    /// Refuses a link that does not extend the chain whose last entry is `last`.
    static func checkLink(index: Int, prevHash: String, last: (index: Int, hash: String)?) throws(StorageError) {
        let expectedIndex = (last?.index ?? -1) + 1
        let expectedPrev = last?.hash ?? RecordRow.genesisHash
        guard index == expectedIndex else {
            throw StorageError(.chainConflict, detail: "index \(index), expected \(expectedIndex)")
        }
        guard prevHash == expectedPrev else {
            throw StorageError(.chainConflict, detail: "prevHash does not match entry \(expectedIndex - 1)")
        }
    }
}
