/// A storage failure. `code` is stable and safe to show; `detail` (SQLite's message or
/// ours) is for logs and never contains bound values, keys or SQL with data in it.
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The disk (or the database's size cap) is full, or writing failed (SQLITE_FULL, SQLITE_IOERR).
        case diskFull
        /// Another connection holds a lock longer than the busy timeout.
        case busy
        /// The file is not a database or is damaged.
        case corrupt
        /// The database file cannot be opened or created.
        case cannotOpen
        /// The database or its directory is read-only.
        case readOnly
        /// A row with that key already exists (e.g. a draw code).
        case alreadyExists
        /// No row with that key (e.g. updating an unknown draw).
        case notFound
        /// An appended record or audit entry does not extend the chain: wrong index or prevHash.
        case chainConflict
        /// Another constraint (CHECK, NOT NULL, append-only trigger) refused the write.
        case constraint
        /// The file was written by a newer Tombola (its schema version is unknown).
        case schemaTooNew
        /// The queue was closed.
        case closed
        /// Any other SQLite error.
        case sqlite
    }

    public let code: Code
    /// The extended SQLite result code, when SQLite reported the error.
    public let sqliteResultCode: Int32?
    public let detail: String

    public init(_ code: Code, sqliteResultCode: Int32? = nil, detail: String = "") {
        self.code = code
        self.sqliteResultCode = sqliteResultCode
        self.detail = detail
    }

    public var description: String {
        let rc = sqliteResultCode.map { " (sqlite \($0))" } ?? ""
        return "storage \(code.rawValue)\(rc)\(detail.isEmpty ? "" : ": \(detail)")"
    }
}
