extension Database {
    /// Replaces a draw's host key hash (the operator set a new key at start-up); `.notFound`
    /// for an unknown code.
    public func updateHostKeyHash(code: String, hash: String) throws(StorageError) {
        try statement("UPDATE draws SET host_key_hash = ? WHERE code = ?").run([.text(hash), .text(code)])
        if connection.changes == 0 { throw StorageError(.notFound, detail: "no such draw") }
    }
}

extension Database {
    /// Every draw's host key hash by code, to notice a key another process (`tombola
    /// host-link`) stored while the server runs.
    public func loadHostKeyHashes() throws(StorageError) -> [String: String] {
        let rows = try statement("SELECT code, host_key_hash FROM draws WHERE deleted_at IS NULL").query([], row: { ($0.text(0), $0.text(1)) })
        return Dictionary(rows, uniquingKeysWith: { _, last in last })
    }

    /// SQLite's `PRAGMA data_version`: changes when another connection commits to the file,
    /// not when this one does, so polling it costs one tiny read.
    public func dataVersion() throws(StorageError) -> Int {
        try integer("PRAGMA data_version")
    }
}
