/// One record to append to a draw's round log: the chain fields of FAIRNESS.md §8 and the
/// record's canonical JSON, plus the key that makes a retried append harmless.
public struct LogRecord: Sendable, Equatable {
    public var index: Int
    public var hash: String
    public var prev: String
    public var json: String
    public var idempotencyKey: String
    /// Stored beside the record, outside its hash: a commit record's seed sealed under the
    /// cluster key (empty for none), so a new owner can finish the committed round.
    public var seal: String = ""
    /// Stored beside the record, outside its hash: the server's signature of it,
    /// `<key fingerprint>:<signature>` in hex (issue #47; empty for none).
    public var signature: String = ""

    /// `prev` of the first record (index 0): 64 zeros (FAIRNESS.md §8).
    public static let genesisPrev = String(repeating: "0", count: 64)

    public init(index: Int, hash: String, prev: String, json: String, idempotencyKey: String) {
        self.index = index
        self.hash = hash
        self.prev = prev
        self.json = json
        self.idempotencyKey = idempotencyKey
    }
}

/// A record as stored: its stream offset (the entry id) and the token that wrote it.
public struct LogEntry: Sendable, Equatable {
    public var offset: String
    public var index: Int
    public var hash: String
    public var prev: String
    public var json: String
    public var token: Int64
    public var idempotencyKey: String
    /// The sealed seed stored beside a commit record (`LogRecord.seal`), or empty.
    public var seal: String = ""
    /// The signature stored beside the record (`LogRecord.signature`), or empty.
    public var signature: String = ""

    public init(offset: String, index: Int, hash: String, prev: String, json: String, token: Int64, idempotencyKey: String) {
        self.offset = offset
        self.index = index
        self.hash = hash
        self.prev = prev
        self.json = json
        self.token = token
        self.idempotencyKey = idempotencyKey
    }
}

/// Where an append landed.
public struct AppendReceipt: Sendable, Equatable {
    public var offset: String
    /// The log's epoch (set when its first record was appended).
    public var epoch: String
}

/// One read of the log: the epoch and the entries from the requested offset on.
public struct LogPage: Sendable, Equatable {
    public var epoch: String
    public var entries: [LogEntry]

    public init(epoch: String, entries: [LogEntry]) {
        self.epoch = epoch
        self.entries = entries
    }
}

extension LogEntry {
    /// Parses one XRANGE entry `[id, [field, value, …]]`.
    init?(_ reply: RedisReply) {
        guard let parts = reply.array, parts.count == 2, let offset = parts[0].string, let flat = parts[1].array,
              flat.count % 2 == 0 else { return nil }
        var fields: [String: String] = [:]
        for i in stride(from: 0, to: flat.count, by: 2) {
            guard let name = flat[i].string, let value = flat[i + 1].string else { return nil }
            fields[name] = value
        }
        guard let index = fields["index"].flatMap({ Int($0) }), let hash = fields["hash"], let prev = fields["prev"],
              let json = fields["json"], let token = fields["token"].flatMap({ Int64($0) }) else { return nil }
        self.init(offset: offset, index: index, hash: hash, prev: prev, json: json, token: token,
                  idempotencyKey: fields["key"] ?? "")
        seal = fields["seal"] ?? ""
        signature = fields["sig"] ?? ""
    }
}
