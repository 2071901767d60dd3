extension Database {
    /// Every draw's code and host key hash (deleted draws left out), oldest first: what a server must know of its stored
    /// draws before it serves (each draw's settings and records are read when it is first used).
    public func loadDrawIndex() throws(StorageError) -> [(code: String, hostKeyHash: String)] {
        try statement("SELECT code, host_key_hash FROM draws WHERE deleted_at IS NULL ORDER BY created_at, code").query([]) { ($0.text(0), $0.text(1)) }
    }

    /// A draw's records in chain order, one at a time: `body` gets each record's index and JSON
    /// text while the statement steps, so a long chain is never in memory at once. A `body` that
    /// throws stops the walk with its error.
    public func forEachRecord(drawCode: String, _ body: (_ index: Int, _ json: String) throws -> Void) throws {
        let statement = try statement("SELECT idx, json FROM records WHERE draw_code = ? ORDER BY idx")
        try statement.bind([.text(drawCode)])
        defer { statement.reset() }
        while try statement.step() { try body(statement.int(0), statement.text(1)) }
    }
}

extension Database {
    /// The last entry of a draw's audit chain (index and hash), or nil when it has none: what
    /// the next append links to, without reading the chain.
    public func auditTail(drawCode: String) throws(StorageError) -> (index: Int, hash: String)? {
        try statement("SELECT idx, hash FROM audit WHERE draw_code = ? ORDER BY idx DESC LIMIT 1")
            .query([.text(drawCode)]) { ($0.int(0), $0.text(1)) }.first
    }
}
