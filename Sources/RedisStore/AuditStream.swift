/// A draw's audit log in cluster mode (docs/CLUSTER.md, *Audit log*): a Redis Stream
/// `{d:CODE}:audit`, one entry per host action (`index prev hash json token`), chained as
/// single-box chains its SQLite audit table: `json` is the entry's canonical body (draw, index,
/// at, actor, action, detail, prev) and `hash` its SHA-256, `prev` the previous entry's hash
/// (64 zeros for the first). Written by the draw's owner (fenced), or by `tombola host-link`
/// (`token` 0, chain-checked only). Never a key or a secret in it.
public struct AuditTail: Sendable, Equatable {
    public var index: Int
    public var hash: String

    public init(index: Int, hash: String) {
        self.index = index
        self.hash = hash
    }

    /// Before the first entry.
    public static let empty = AuditTail(index: -1, hash: String(repeating: "0", count: 64))
}

/// Why an audit entry was not appended.
public enum AuditAppendError: Error, Sendable, Equatable {
    /// The writer's token is not current, or its lease expired: it is not the owner.
    case fenced(String)
    /// The entry does not follow the stream's last entry (here: the real tail); build it again.
    case chain(AuditTail)
    case store(ClusterError)
}

extension RedisDrawKeys {
    /// The draw's audit log (a Stream; see `AuditStream`).
    public var audit: String { "{d:\(code)}:audit" }
}

enum AuditScripts {
    /// KEYS: lease, fence, audit. ARGV: lease value, token ("" for a system write outside the
    /// owner: no fence check), index, prev, hash, json. → the entry's stream offset; errors
    /// `FENCED …` or `CHAIN <lastIndex> <lastHash>` (nothing written).
    static let append = "if ARGV[2] ~= '' then\n" + ClusterScripts.fenceCheck + "end\n" + """
        local lastIndex, lastHash = -1, string.rep('0', 64)
        local last = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
        if #last == 1 then
          local fields = last[1][2]
          for i = 1, #fields, 2 do
            if fields[i] == 'index' then lastIndex = tonumber(fields[i + 1]) end
            if fields[i] == 'hash' then lastHash = fields[i + 1] end
          end
        end
        if ARGV[4] ~= lastHash or tonumber(ARGV[3]) ~= lastIndex + 1 then
          return redis.error_reply('CHAIN ' .. lastIndex .. ' ' .. lastHash)
        end
        local token = ARGV[2]
        if token == '' then token = '0' end
        return redis.call('XADD', KEYS[3], '*', 'index', ARGV[3], 'prev', ARGV[4], 'hash', ARGV[5], 'json', ARGV[6], 'token', token)
        """
}

/// Appends to and reads the audit streams. Loop-confined through its client.
public final class AuditStream {
    public let client: RedisClient
    private let appendScript = RedisScript(AuditScripts.append)
    /// Pages of the log (AuditStream+Page.swift).
    let pageScript = RedisScript(AuditScripts.page)

    public init(client: RedisClient) {
        self.client = client
    }

    /// The stream's last entry (`AuditTail.empty` when there is none).
    public func tail(draw: String, _ completion: @escaping (Result<AuditTail, ClusterError>) -> Void) {
        client.send(["XREVRANGE", RedisDrawKeys(code: draw).audit, "+", "-", "COUNT", "1"]) { result in
            completion(result.mapError(ClusterError.init).flatMap { reply in
                guard let entries = reply.array else { return .failure(.unexpectedReply("audit tail: \(reply)")) }
                guard let entry = entries.first else { return .success(.empty) }
                guard let fields = entry.array?.last?.array else { return .failure(.unexpectedReply("audit tail: \(reply)")) }
                var index: Int?
                var hash: String?
                for i in stride(from: 0, to: fields.count - 1, by: 2) {
                    if fields[i].string == "index" { index = fields[i + 1].string.flatMap { Int($0) } }
                    if fields[i].string == "hash" { hash = fields[i + 1].string }
                }
                guard let index, let hash else { return .failure(.unexpectedReply("audit tail: \(reply)")) }
                return .success(AuditTail(index: index, hash: hash))
            })
        }
    }

    /// Appends one entry (`json`, whose SHA-256 is `hash`) after `tail`, fenced by `lease`
    /// (nil: a system write outside the owner, checked against the chain only). Returns its offset.
    public func append(draw: String, index: Int, prev: String, hash: String, json: String, lease: OwnerLease?,
                       _ completion: @escaping (Result<String, AuditAppendError>) -> Void) {
        let keys = RedisDrawKeys(code: draw)
        let arguments = [lease?.value ?? "", lease.map { String($0.token) } ?? "", String(index), prev, hash, json].map { Array($0.utf8) }
        appendScript.run(on: client, keys: [keys.lease, keys.fence, keys.audit], arguments: arguments) { result in
            switch result {
            case .success(let reply):
                guard let offset = reply.string else { return completion(.failure(.store(.unexpectedReply("audit: \(reply)")))) }
                completion(.success(offset))
            case .failure(.server(let message)):
                switch ClusterStore.refusal(message) {
                case .fenced(let detail):
                    completion(.failure(.fenced(detail)))
                case .chainMismatch(let detail):
                    let parts = detail.split(separator: " ")
                    guard parts.count == 2, let last = Int(parts[0]) else {
                        return completion(.failure(.store(.unexpectedReply(message))))
                    }
                    completion(.failure(.chain(AuditTail(index: last, hash: String(parts[1])))))
                case let other:
                    completion(.failure(.store(other)))
                }
            case .failure(let error):
                completion(.failure(.store(ClusterError(error))))
            }
        }
    }
}
