import DrawEngine

/// What one host command writes, in one synced transaction: the records, and optionally the
/// new settings, the Clear mark and an audit entry.
struct RecordBatch: Sendable {
    /// The host command that wrote it (for the log).
    var command: String = ""
    var records: [DrawRecord]
    var config: String? = nil
    var clearedThrough: Int? = nil
    var audit: AuditEntry? = nil
    /// The seed behind the batch's last `commit` record (set by the room; a cluster store
    /// keeps it sealed beside that record, SQLite ignores it).
    var committedSeed: Seed? = nil
    /// Check-in rows written in the same transaction (#14).
    var checkin: CheckinWrite? = nil
    /// The host command's answer when it carries a `seq` (set by the room; a cluster store keeps
    /// it with the records so that the command resent to a new owner gets it, SQLite ignores it).
    var answer: BatchAnswer? = nil
}

/// The answer to the host command that wrote a batch, for `client`/`seq` dedup across owners.
struct BatchAnswer: Sendable {
    var client: String
    var seq: Int64
    var reply: CommandReply
}

/// A draw's stored chain: its settings (as stored JSON text) and every record in order.
struct StoredChain: Sendable {
    var configJSON: String
    var records: [DrawRecord]
}

/// The one interface between a draw room and where its records live (today SQLite on its
/// own thread, `SQLiteDrawStore`). Completions run on any thread.
protocol DrawRecordStore: Sendable {
    /// Appends `batch` to draw `code`: all of it or none of it, durable before `completion`.
    func append(_ batch: RecordBatch, to code: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void)
    /// Reads back the chain of draw `code`.
    func chain(of code: String, completion: @escaping @Sendable (Result<StoredChain, any Error>) -> Void)
    /// The protocol's code for a failed write (`disk_full`, `storage_failed`).
    func errorCode(for error: any Error) -> String
}
