extension Database {
    /// Replaces a draw's host key hash (the operator set a new key at start-up); `.notFound`
    /// for an unknown code.
    public func updateHostKeyHash(code: String, hash: String) throws(StorageError) {
        try statement("UPDATE draws SET host_key_hash = ? WHERE code = ?").run([.text(hash), .text(code)])
        if connection.changes == 0 { throw StorageError(.notFound, detail: "no such draw") }
    }
}
