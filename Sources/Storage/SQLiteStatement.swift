import CSQLite

/// A value bound to a statement parameter.
enum SQLiteValue {
    case integer(Int)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}

/// Owns one prepared `sqlite3_stmt*`; finalizes it in `deinit`.
final class SQLiteStatement {
    let handle: OpaquePointer
    /// Keeps the connection open while the statement lives.
    private let connection: SQLiteConnection

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Resets the statement and binds `values` to parameters 1, 2, ….
    func bind(_ values: [SQLiteValue]) throws(StorageError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .integer(let n): rc = sqlite3_bind_int64(handle, index, Int64(n))
            case .real(let x): rc = sqlite3_bind_double(handle, index, x)
            case .text(let s): rc = sqlite3_bind_text(handle, index, s, -1, SQLiteStatement.transient)
            case .blob(let bytes): rc = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), SQLiteStatement.transient) }
            case .null: rc = sqlite3_bind_null(handle, index)
            }
            guard rc == SQLITE_OK else { throw connection.error(rc) }
        }
    }

    /// Advances; true when a row is available, false when done.
    func step() throws(StorageError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(rc)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Binds, steps to completion and resets (for INSERT/UPDATE).
    func run(_ values: [SQLiteValue]) throws(StorageError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Binds and collects every row through `row`.
    func query<T>(_ values: [SQLiteValue], row: (SQLiteStatement) -> T) throws(StorageError) -> [T] {
        try bind(values)
        var rows: [T] = []
        while try step() { rows.append(row(self)) }
        sqlite3_reset(handle)
        return rows
    }

    /// Ends a walk begun with `bind` and `step` (releases the read).
    func reset() {
        sqlite3_reset(handle)
    }

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// SQLITE_TRANSIENT: SQLite copies the bound text.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
