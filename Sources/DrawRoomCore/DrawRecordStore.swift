import DrawEngine

/// What one host command writes, in one synced transaction: the records, and optionally the
/// new settings, the Clear mark and an audit entry.
///
/// `committedSeed` (the seed behind the batch's `commit` record) and `rolling` (what a Start froze)
/// are kept sealed beside the records by every store (SQLite's `pending_seeds`, the cluster's
/// Redis keys), so a restart or a new owner carries the same round on to the same winners instead
/// of committing anew (issue #40). `answer` serves only a store that other instances take over
/// from: kept with the records, so a host command resent to a new owner gets its first answer,
/// not a second run (a single box's resent command reaches the same room's `applied` log).
public struct RecordBatch: Sendable {
    /// The host command that wrote it (for the log).
    public var command: String = ""
    public var records: [DrawRecord]
    public var config: String? = nil
    public var clearedThrough: Int? = nil
    public var audit: AuditEntry? = nil
    /// The seed behind the batch's last `commit` record (set by the room; a cluster store
    /// keeps it sealed beside that record, SQLite ignores it).
    public var committedSeed: Seed? = nil
    /// A Start's batch: what it froze (a single box keeps it beside the sealed seed, so a
    /// restart carries the round on to the same winners; issue #40).
    public var rolling: RollingStart? = nil
    /// Check-in rows written in the same transaction (#14).
    public var checkin: CheckinWrite? = nil
    /// The host command's answer when it carries a `seq` (set by the room; a cluster store keeps
    /// it with the records so that the command resent to a new owner gets it, SQLite ignores it).
    public var answer: BatchAnswer? = nil

    public init(command: String = "", records: [DrawRecord], config: String? = nil, clearedThrough: Int? = nil,
                audit: AuditEntry? = nil, committedSeed: Seed? = nil, checkin: CheckinWrite? = nil, answer: BatchAnswer? = nil) {
        self.command = command
        self.records = records
        self.config = config
        self.clearedThrough = clearedThrough
        self.audit = audit
        self.committedSeed = committedSeed
        self.checkin = checkin
        self.answer = answer
    }
}

/// The answer to the host command that wrote a batch, for `client`/`seq` dedup across owners.
public struct BatchAnswer: Sendable {
    public var client: String
    public var seq: Int64
    public var reply: CommandReply

    public init(client: String, seq: Int64, reply: CommandReply) {
        self.client = client
        self.seq = seq
        self.reply = reply
    }
}

/// A draw's stored chain: its settings (as stored JSON text) and every record in order.
public struct StoredChain: Sendable {
    public var configJSON: String
    public var records: [DrawRecord]

    public init(configJSON: String, records: [DrawRecord]) {
        self.configJSON = configJSON
        self.records = records
    }
}

/// The one interface between a draw room and where its records live (today SQLite on its
/// own thread, `SQLiteDrawStore`). Completions run on any thread.
public protocol DrawRecordStore: Sendable {
    /// Appends `batch` to draw `code`: all of it or none of it, durable before `completion`.
    func append(_ batch: RecordBatch, to code: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void)
    /// Reads back the chain of draw `code`.
    func chain(of code: String, completion: @escaping @Sendable (Result<StoredChain, any Error>) -> Void)
    /// The protocol's code for a failed write (`disk_full`, `storage_failed`).
    func errorCode(for error: any Error) -> String
}

/// What a round's Start froze: the commitment it rolls on, the round, the pages' contributions
/// and the audience number. With the commitment's seed, these make the round's winners.
public struct RollingStart: Sendable, Equatable {
    public var commitment: String
    public var round: Int
    public var contributions: [Contribution]
    public var audience: String?

    public init(commitment: String, round: Int, contributions: [Contribution], audience: String?) {
        self.commitment = commitment
        self.round = round
        self.contributions = contributions
        self.audience = audience
    }

    /// What `draw`'s Start froze; nil unless it is rolling on a commitment.
    public init?(rolling draw: Draw) {
        guard draw.phase == .rolling, let commit = draw.commit else { return nil }
        self.init(commitment: commit.commitment, round: commit.round, contributions: draw.frozenContributions,
                  audience: draw.frozenAudience)
    }
}
