import CSQLite

/// The database as seen from the storage thread: one connection in WAL mode with
/// `synchronous=FULL` (a commit is on disk when it returns), foreign keys on and a busy
/// timeout, migrated to the current schema. Repositories are extensions of this type.
/// Not thread-safe: only the `StorageQueue`'s thread (or the thread that opened it) uses it.
public final class Database {
    let connection: SQLiteConnection
    private var statements: [String: SQLiteStatement] = [:]
    private let path: String
    private var cachedSeedKey: [UInt8]?

    /// Opens (creating if needed) and migrates the database at `path`.
    public init(path: String, busyTimeoutMilliseconds: Int32 = 5000) throws(StorageError) {
        connection = try SQLiteConnection(path: path)
        self.path = path
        connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        let mode = try text("PRAGMA journal_mode=WAL")
        guard mode.lowercased() == "wal" else {
            throw StorageError(.sqlite, detail: "journal_mode is \(mode), not wal")
        }
        try connection.execute("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
        try Migrations.run(on: self)
    }

    /// The key that seals pending seeds (`SeedKeyFile`: `seed.key` beside the database file), made
    /// on first use (a read-only data directory still opens for reading).
    public func seedKey() throws(StorageError) -> [UInt8] {
        if let cachedSeedKey { return cachedSeedKey }
        let key = try SeedKeyFile.load(besides: path)
        cachedSeedKey = key
        return key
    }

    /// The schema version (`PRAGMA user_version`).
    public func schemaVersion() throws(StorageError) -> Int {
        try integer("PRAGMA user_version")
    }

    /// The journal mode, `wal` once open.
    public func journalMode() throws(StorageError) -> String {
        try text("PRAGMA journal_mode").lowercased()
    }

    /// Whether `PRAGMA integrity_check` reports `ok`.
    public func integrityCheck() -> Bool {
        (try? text("PRAGMA integrity_check")) == "ok"
    }

    /// Proves the database takes writes: one synced commit that rewrites the header's schema
    /// version with its own value (a WAL frame and an fsync; nothing changes). Throws when the
    /// file, its directory or the disk refuses (`/readyz`).
    public func probeWrite() throws(StorageError) {
        try storageTransaction { () throws(StorageError) in
            try connection.execute("PRAGMA user_version = \(try schemaVersion())")
        }
    }

    /// Runs `body` in `BEGIN IMMEDIATE … COMMIT` (synced on return), rolling back if it
    /// throws; rethrows `body`'s error or a `StorageError`. Nested calls (including the
    /// repository methods) become savepoints, so several appends can commit together.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let nested = try begin()
        do {
            let result = try body()
            try commit(nested: nested)
            return result
        } catch {
            rollback(nested: nested)
            throw error
        }
    }

    /// The typed form the repositories use.
    func storageTransaction<T>(_ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        let nested = try begin()
        do {
            let result = try body()
            try commit(nested: nested)
            return result
        } catch {
            rollback(nested: nested)
            throw error
        }
    }

    private func begin() throws(StorageError) -> Bool {
        let nested = !connection.isAutocommit
        try connection.execute(nested ? "SAVEPOINT tombola" : "BEGIN IMMEDIATE")
        return nested
    }

    private func commit(nested: Bool) throws(StorageError) {
        try connection.execute(nested ? "RELEASE tombola" : "COMMIT")
    }

    private func rollback(nested: Bool) {
        try? connection.execute(nested ? "ROLLBACK TO tombola; RELEASE tombola" : "ROLLBACK")
    }

    /// A cached prepared statement for `sql`.
    func statement(_ sql: String) throws(StorageError) -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let statement = try connection.prepare(sql)
        statements[sql] = statement
        return statement
    }

    func integer(_ sql: String, _ values: [SQLiteValue] = []) throws(StorageError) -> Int {
        try statement(sql).query(values) { $0.int(0) }.first ?? 0
    }

    func text(_ sql: String, _ values: [SQLiteValue] = []) throws(StorageError) -> String {
        try statement(sql).query(values) { $0.text(0) }.first ?? ""
    }
}
