/// Reading a draw's audit log a page at a time (`GET /api/draws/<code>/audit` in cluster mode).
/// A stream cannot be entered by position, but its entries are its chain in order (the append
/// script takes index n only after index n − 1), so entry i is the i-th: the script reads from
/// whichever end is nearer to the page (a page near the tail, the host page following the log,
/// reads only the newest entries), on Redis, in one round trip, and never writes.

extension AuditScripts {
    /// KEYS: audit. ARGV: after (−1: from the first), limit. → a flat list `json, hash, json,
    /// hash, …` of the entries whose index is above `after`, oldest first, at most `limit`.
    static let page = """
        local after, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
        local function field(entry, name)
          local fields = entry[2]
          for i = 1, #fields, 2 do
            if fields[i] == name then return fields[i + 1] end
          end
          return nil
        end
        local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
        if #last == 0 then return {} end
        local lastIndex = tonumber(field(last[1], 'index'))
        if lastIndex <= after then return {} end
        local entries = {}
        if lastIndex - after <= after + 1 + limit then
          local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', lastIndex - after)
          for i = #newest, 1, -1 do entries[#entries + 1] = newest[i] end
        else
          entries = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', after + 1 + limit)
        end
        local out = {}
        for _, entry in ipairs(entries) do
          local index = tonumber(field(entry, 'index'))
          if index and index > after and #out < 2 * limit then
            out[#out + 1] = field(entry, 'json')
            out[#out + 1] = field(entry, 'hash')
          end
        end
        return out
        """
}

/// One entry as the stream keeps it: its canonical body (draw, index, at, actor, action,
/// detail, prev) and that body's SHA-256.
public struct AuditStreamEntry: Sendable, Equatable {
    public var json: String
    public var hash: String
}

extension AuditStream {
    /// The entries of draw `draw` whose index is above `after` (nil: from the first), oldest
    /// first, at most `limit`. Loop only (the client's).
    public func page(draw: String, after: Int?, limit: Int,
                     _ completion: @escaping (Result<[AuditStreamEntry], ClusterError>) -> Void) {
        let arguments = [String(after ?? -1), String(limit)].map { Array($0.utf8) }
        pageScript.run(on: client, keys: [RedisDrawKeys(code: draw).audit], arguments: arguments) { result in
            switch result {
            case .success(let reply):
                guard let items = reply.array, items.count % 2 == 0 else {
                    return completion(.failure(.unexpectedReply("audit page: \(reply)")))
                }
                var entries: [AuditStreamEntry] = []
                for i in stride(from: 0, to: items.count, by: 2) {
                    guard let json = items[i].string, let hash = items[i + 1].string else {
                        return completion(.failure(.unexpectedReply("audit page: \(reply)")))
                    }
                    entries.append(AuditStreamEntry(json: json, hash: hash))
                }
                completion(.success(entries))
            case .failure(let error):
                completion(.failure(ClusterError(error)))
            }
        }
    }
}
