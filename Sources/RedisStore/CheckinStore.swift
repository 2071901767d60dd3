/// Check-in in cluster mode (docs/CLUSTER.md, *Check-in*): a draw's entrant rows in
/// `{d:CODE}:entrants` (public id → the row as canonical JSON, its `seq` inside) and its
/// check-in settings in `{d:CODE}:meta` field `checkin`, written only by the lease holder with
/// a current fencing token, and, for a write that also changes the draw's settings (closing
/// entries locks the pool), in the same script as that `config`: they cannot diverge.
///
/// Loop-confined through its client, like `ClusterStore` (hence `@unchecked Sendable`).
public final class CheckinStore: @unchecked Sendable {
    public let client: RedisClient
    private let writeScript = RedisScript(CheckinStore.writeSource)
    private let readScript = RedisScript(CheckinStore.readSource)

    public init(client: RedisClient) {
        self.client = client
    }

    /// One check-in write: rows to set (all of them, replacing the hash, for an erase), and
    /// optionally the check-in settings and the draw's settings.
    public struct Write: Sendable, Equatable {
        public var config: String?
        public var settings: String?
        /// Public id → the row's JSON.
        public var rows: [(id: String, row: String)]
        /// Delete every row first (erase: the rows given are then the whole book).
        public var replaceAll: Bool

        public init(config: String? = nil, settings: String? = nil, rows: [(id: String, row: String)] = [], replaceAll: Bool = false) {
            self.config = config
            self.settings = settings
            self.rows = rows
            self.replaceAll = replaceAll
        }

        public static func == (a: Write, b: Write) -> Bool {
            a.config == b.config && a.settings == b.settings && a.replaceAll == b.replaceAll
                && a.rows.map(\.id) == b.rows.map(\.id) && a.rows.map(\.row) == b.rows.map(\.row)
        }
    }

    /// KEYS: lease, fence, meta, entrants. ARGV: lease value, token, config ('' none),
    /// settings ('' none), 'replace' or 'add', row count n, then n × (id, row).
    /// FENCED (as the append scripts: the token is not the fence's value, or the lease is not
    /// held with it) before anything is written; then everything, atomically. → 1.
    static let writeSource = ClusterScripts.fenceCheck + """
        if ARGV[3] ~= '' then redis.call('HSET', KEYS[3], 'config', ARGV[3]) end
        if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], 'checkin', ARGV[4]) end
        if ARGV[5] == 'replace' then redis.call('DEL', KEYS[4]) end
        local n = tonumber(ARGV[6])
        for i = 0, n - 1 do
          redis.call('HSET', KEYS[4], ARGV[7 + i * 2], ARGV[8 + i * 2])
        end
        return 1
        """

    /// KEYS: meta, entrants. → {settings or '', {rows…}}: one moment's settings and rows.
    static let readSource = """
        return {redis.call('HGET', KEYS[1], 'checkin') or '', redis.call('HVALS', KEYS[2])}
        """

    /// Writes `write` only while `lease` is held with a current token (else `.fenced`). Loop only.
    public func write(_ write: Write, lease: OwnerLease, _ completion: @escaping (Result<Void, ClusterError>) -> Void) {
        let keys = RedisDrawKeys(code: lease.draw)
        var arguments: [[UInt8]] = [
            bytes(lease.value), bytes(lease.token), Array((write.config ?? "").utf8), Array((write.settings ?? "").utf8),
            bytes(write.replaceAll ? "replace" : "add"), bytes(write.rows.count),
        ]
        for row in write.rows { arguments += [bytes(row.id), Array(row.row.utf8)] }
        writeScript.runReplicated(on: client, keys: [keys.lease, keys.fence, keys.meta, keys.entrants], arguments: arguments) { result in
            switch result {
            case .success(let reply) where reply.integer == 1:
                completion(.success(()))
            case .success(let reply):
                completion(.failure(.unexpectedReply("check-in write: \(reply)")))
            case .failure(.server(let message)):
                completion(.failure(ClusterStore.refusal(message)))
            case .failure(let error):
                completion(.failure(.unavailable(error)))
            }
        }
    }

    /// The draw's check-in settings (nil: never written) and every row (unordered). Loop only.
    public func read(draw code: String, _ completion: @escaping (Result<(settings: String?, rows: [String]), ClusterError>) -> Void) {
        let keys = RedisDrawKeys(code: code)
        readScript.run(on: client, keys: [keys.meta, keys.entrants], arguments: []) { result in
            switch result {
            case .success(let reply):
                guard let parts = reply.array, parts.count == 2, let settings = parts[0].string, let rows = parts[1].array else {
                    return completion(.failure(.unexpectedReply("check-in read: \(reply)")))
                }
                let texts = rows.compactMap(\.string)
                guard texts.count == rows.count else { return completion(.failure(.unexpectedReply("check-in read: a row is not text"))) }
                completion(.success((settings.isEmpty ? nil : settings, texts)))
            case .failure(let error):
                completion(.failure(.unavailable(error)))
            }
        }
    }
}

extension RedisDrawKeys {
    /// A hash: an entrant's public id → its row (canonical JSON: id, seq, name, fields, device
    /// hash, joinedAt, removed), written only by the lease holder (`CheckinStore`). Personal data.
    public var entrants: String { "{d:\(code)}:entrants" }
}
