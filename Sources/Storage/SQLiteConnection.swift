import CSQLite

/// Owns one `sqlite3*` handle; closes it in `deinit`. Not thread-safe: used by one thread.
final class SQLiteConnection {
    let handle: OpaquePointer

    init(path: String, readOnly: Bool = false) throws(StorageError) {
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw Self.error(rc, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements without results.
    func execute(_ sql: String) throws(StorageError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    func prepare(_ sql: String) throws(StorageError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc) }
        return SQLiteStatement(handle: statement, connection: self)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// False inside an open transaction.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// The error for `rc` with SQLite's current message (which names constraints, not values).
    func error(_ rc: Int32) -> StorageError {
        Self.error(rc, message: String(cString: sqlite3_errmsg(handle)))
    }

    static func error(_ rc: Int32, message: String) -> StorageError {
        let code: StorageError.Code
        switch rc & 0xFF {
        case SQLITE_FULL, SQLITE_IOERR: code = .diskFull
        case SQLITE_BUSY, SQLITE_LOCKED: code = .busy
        case SQLITE_CORRUPT, SQLITE_NOTADB: code = .corrupt
        case SQLITE_CANTOPEN: code = .cannotOpen
        case SQLITE_READONLY: code = .readOnly
        case SQLITE_CONSTRAINT:
            code = (rc == constraintPrimaryKey || rc == constraintUnique) ? .alreadyExists : .constraint
        default: code = .sqlite
        }
        return StorageError(code, sqliteResultCode: rc, detail: message)
    }

    // Extended result codes are function-like macros, not imported into Swift.
    private static let constraintPrimaryKey = SQLITE_CONSTRAINT | (6 << 8)
    private static let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)
}
