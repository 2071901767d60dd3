extension Database {
    /// The stored SHA-256 digest of server key `name` (`admin`), or nil when none was stored yet.
    public func serverKeyHash(_ name: String) throws(StorageError) -> String? {
        try statement("SELECT hash FROM server_keys WHERE name = ?").query([.text(name)]) { $0.text(0) }.first
    }

    /// Stores (or replaces) the digest of server key `name`.
    public func storeServerKeyHash(_ name: String, hash: String, at seconds: Double) throws(StorageError) {
        try statement("INSERT INTO server_keys (name, hash, created_at) VALUES (?, ?, ?) "
                      + "ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at")
            .run([.text(name), .text(hash), .real(seconds)])
    }
}
