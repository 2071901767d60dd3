import CSQLite
import Foundation

/// Consistent copies of a Tombola database with SQLite's online backup API
/// (https://sqlite.org/backup.html), safe while a server writes to it: the copy is one read
/// transaction, so it holds every record that was committed when it began and nothing later.
public enum DatabaseBackup {
    /// What a copy holds.
    public struct Summary: Sendable, Equatable {
        public let schemaVersion: Int
        public let draws: Int
        public let records: Int
        public let bytes: Int
    }

    /// Copies the database at `source` (opened read-only, never migrated) to `destination`,
    /// which must not exist. Written beside it first, checked, synced and renamed into place,
    /// so `destination` is either a complete self-contained database file or absent.
    public static func backup(from source: String, to destination: String) throws(StorageError) -> Summary {
        guard FileManager.default.fileExists(atPath: source) else {
            throw StorageError(.cannotOpen, detail: "no database at \(source)")
        }
        let from = try SQLiteConnection(path: source, readOnly: true)
        from.setBusyTimeout(milliseconds: 5000)
        return try copy(from, to: destination)
    }

    /// Brings a backup back: checks that `file` is an intact Tombola database this build can
    /// open, then copies it to `destination` (which must not exist; stop the server and move
    /// the old data directory aside first).
    public static func restore(from file: String, to destination: String) throws(StorageError) -> Summary {
        guard FileManager.default.fileExists(atPath: file) else {
            throw StorageError(.cannotOpen, detail: "no backup file at \(file)")
        }
        let from = try SQLiteConnection(path: file, readOnly: true)
        let version = try integer(from, "PRAGMA user_version")
        if version > Migrations.latest {
            throw StorageError(.schemaTooNew, detail: "the backup has schema version \(version), this build knows up to \(Migrations.latest)")
        }
        return try copy(from, to: destination)
    }

    private static func copy(_ from: SQLiteConnection, to destination: String) throws(StorageError) -> Summary {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StorageError(.alreadyExists, detail: "\(destination) already exists; nothing was overwritten")
        }
        let partial = destination + ".partial"
        removeFiles(partial)
        do throws(StorageError) {
            let to = try SQLiteConnection(path: partial)
            guard let backup = sqlite3_backup_init(to.handle, "main", from.handle, "main") else { throw to.error(sqlite3_errcode(to.handle)) }
            // One step for all pages: a single read transaction on the source, so the copy is
            // consistent even while another process commits (WAL readers never block writers).
            let rc = sqlite3_backup_step(backup, -1)
            sqlite3_backup_finish(backup)
            guard rc == SQLITE_DONE else { throw SQLiteConnection.error(rc, message: String(cString: sqlite3_errstr(rc))) }
            // A single file with no -wal beside it, whatever the source's journal mode.
            try to.execute("PRAGMA journal_mode=DELETE")
            guard try text(to, "PRAGMA integrity_check") == "ok" else {
                throw StorageError(.corrupt, detail: "the copy failed its integrity check")
            }
            let summary = Summary(schemaVersion: try integer(to, "PRAGMA user_version"),
                                  draws: try tableCount(to, "draws"), records: try tableCount(to, "records"),
                                  bytes: try integer(to, "PRAGMA page_count") * integer(to, "PRAGMA page_size"))
            guard summary.schemaVersion >= 1 else { throw StorageError(.corrupt, detail: "not a Tombola database (schema version 0)") }
            try sync(partial)
            guard rename(partial, destination) == 0 else { throw StorageError(.cannotOpen, detail: "cannot rename the copy into \(destination)") }
            try sync((destination as NSString).deletingLastPathComponent.isEmpty ? "." : (destination as NSString).deletingLastPathComponent)
            return summary
        } catch {
            removeFiles(partial)
            throw error
        }
    }

    private static func tableCount(_ connection: SQLiteConnection, _ table: String) throws(StorageError) -> Int {
        let exists = try integer(connection, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '\(table)'")
        return exists == 0 ? 0 : try integer(connection, "SELECT count(*) FROM \(table)")
    }

    private static func integer(_ connection: SQLiteConnection, _ sql: String) throws(StorageError) -> Int {
        let statement = try connection.prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.int(0)
    }

    private static func text(_ connection: SQLiteConnection, _ sql: String) throws(StorageError) -> String {
        let statement = try connection.prepare(sql)
        guard try statement.step() else { return "" }
        return statement.text(0)
    }

    private static func sync(_ path: String) throws(StorageError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError(.cannotOpen, detail: "cannot open \(path) to sync it") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StorageError(.diskFull, detail: "fsync of \(path) failed") }
    }

    private static func removeFiles(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }
}
