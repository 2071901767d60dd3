import DrawRoomCore
import JSON
import Locking
import RedisStore
import Storage
import Webhooks

/// Each draw's outgoing webhooks (issue #43, item 4) and their delivery. Single box keeps the
/// hooks in SQLite (`webhooks`, cached here) and their last status in memory; cluster mode keeps
/// both in Redis (`{d:CODE}:webhooks`: hook id → the hook as JSON, `{d:CODE}:webhookstatus`:
/// hook id → its last status), so any instance lists and changes them, and only the instance
/// that announces a draw's events (its owner) delivers them: once per event.
///
/// The signing secret is kept as the host got it (it must sign); it leaves only in the answer
/// that made the hook, never in a list, an export, a state frame or a log line.
final class WebhookRegistry: Sendable {
    static let maxPerDraw = 10

    let allowPrivate: Bool
    let dispatcher: WebhookDispatcher
    private let storage: StorageQueue?
    private let redis: RedisClient?
    /// Single box: every draw's hooks, as stored.
    private let cache: Lock<[String: [WebhookRow]]>

    private init(allowPrivate: Bool, storage: StorageQueue?, redis: RedisClient?, rows: [String: [WebhookRow]]) {
        self.allowPrivate = allowPrivate
        self.storage = storage
        self.redis = redis
        cache = Lock(rows)
        var onStatus: (@Sendable (String, WebhookStatus) -> Void)?
        if let redis {
            onStatus = { key, status in WebhookRegistry.storeStatus(key, status, client: redis) }
        }
        dispatcher = WebhookDispatcher(allowPrivate: allowPrivate, onStatus: onStatus)
    }

    /// Single box: reads the stored hooks (start-up; blocks).
    static func local(storage: StorageQueue, allowPrivate: Bool) throws -> WebhookRegistry {
        let rows = try storage.sync { database in try database.loadWebhooks() }
        return WebhookRegistry(allowPrivate: allowPrivate, storage: storage, redis: nil, rows: rows)
    }

    static func cluster(client: RedisClient, allowPrivate: Bool) -> WebhookRegistry {
        WebhookRegistry(allowPrivate: allowPrivate, storage: nil, redis: client, rows: [:])
    }

    // MARK: Keys

    static func hooksKey(_ code: String) -> String { "{d:\(code)}:webhooks" }
    static func statusKey(_ code: String) -> String { "{d:\(code)}:webhookstatus" }
    /// The dispatcher's queue of one hook: unique across draws.
    static func queueKey(code: String, id: String) -> String { "\(code)/\(id)" }

    // MARK: Reading and changing

    /// A draw's hooks, oldest first.
    func hooks(of code: String, _ completion: @escaping @Sendable (Result<[WebhookRow], CommandFailure>) -> Void) {
        guard let redis else { return completion(.success(cache.withLock { $0[code] ?? [] })) }
        redis.loop.execute {
            redis.send(["HVALS", Self.hooksKey(code)]) { result in
                switch result {
                case .success(let reply):
                    let rows = (reply.array ?? []).compactMap { $0.string.flatMap(Self.row(json:)) }
                    completion(.success(rows.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }))
                case .failure:
                    completion(.failure(CommandFailure(code: "cluster_unavailable")))
                }
            }
        }
    }

    /// Adds `row` unless the draw has `maxPerDraw` hooks already (`too_many_webhooks`).
    func add(_ row: WebhookRow, to code: String, _ completion: @escaping @Sendable (Result<Void, CommandFailure>) -> Void) {
        hooks(of: code) { [self] result in
            switch result {
            case .failure(let failure): return completion(.failure(failure))
            case .success(let rows) where rows.count >= Self.maxPerDraw: return completion(.failure(CommandFailure(code: "too_many_webhooks")))
            case .success: break
            }
            if let redis {
                let json = Self.json(row, withSecret: true).canonicalString
                return redis.loop.execute {
                    redis.send(["HSET", Self.hooksKey(code), row.id, json]) { result in
                        completion(result.map { _ in () }.mapError { _ in CommandFailure(code: "cluster_unavailable") })
                    }
                }
            }
            storage?.async({ database in try database.saveWebhook(code: code, row) }, completion: { [cache] result in
                switch result {
                case .success:
                    cache.withLock { $0[code, default: []].append(row) }
                    completion(.success(()))
                case .failure(let error):
                    completion(.failure(CommandFailure(code: DrawPersistence.errorCode(error))))
                }
            })
        }
    }

    /// Deletes hook `id` (false: there was none); events still queued for it are not sent.
    func delete(_ id: String, of code: String, _ completion: @escaping @Sendable (Result<Bool, CommandFailure>) -> Void) {
        let dispatcher = self.dispatcher
        if let redis {
            return redis.loop.execute {
                redis.send(["HDEL", Self.hooksKey(code), id]) { result in
                    redis.send(["HDEL", Self.statusKey(code), id]) { _ in }
                    switch result {
                    case .success(let reply):
                        dispatcher.remove(Self.queueKey(code: code, id: id))
                        completion(.success((reply.integer ?? 0) > 0))
                    case .failure:
                        completion(.failure(CommandFailure(code: "cluster_unavailable")))
                    }
                }
            }
        }
        storage?.async({ database in try database.deleteWebhook(code: code, id: id) }, completion: { [cache] result in
            switch result {
            case .success(let deleted):
                cache.withLock { $0[code]?.removeAll { $0.id == id } }
                dispatcher.remove(Self.queueKey(code: code, id: id))
                completion(.success(deleted))
            case .failure(let error):
                completion(.failure(CommandFailure(code: DrawPersistence.errorCode(error))))
            }
        })
    }

    /// The last status of each of a draw's hooks by id (cluster mode: as the delivering instance left it in Redis).
    func statuses(of code: String, ids: [String], _ completion: @escaping @Sendable ([String: JSONValue]) -> Void) {
        guard let redis else {
            var out: [String: JSONValue] = [:]
            for id in ids { out[id] = Self.json(dispatcher.status(of: Self.queueKey(code: code, id: id))) }
            return completion(out)
        }
        redis.loop.execute {
            redis.send(["HGETALL", Self.statusKey(code)]) { result in
                var out: [String: JSONValue] = [:]
                if case .success(let reply) = result, let items = reply.array {
                    var index = 0
                    while index + 1 < items.count {
                        if let id = items[index].string, let text = items[index + 1].string, let json = try? JSONValue.parse(Array(text.utf8)) {
                            out[id] = json
                        }
                        index += 2
                    }
                }
                for id in ids where out[id] == nil { out[id] = Self.json(WebhookStatus()) }
                completion(out)
            }
        }
    }

    // MARK: Delivering

    /// Queues `events` of draw `code` for each of its hooks that wants them. Returns at once
    /// (cluster mode reads the hooks from Redis first); deliveries run on the dispatcher's threads.
    func deliver(_ events: [WebhookEvent], code: String) {
        guard !events.isEmpty else { return }
        let dispatcher = self.dispatcher
        hooks(of: code) { result in
            guard case .success(let rows) = result else {
                return DrawLog.error("webhooks: the hooks of \(code) could not be read; \(events.count) event(s) not sent", code: code)
            }
            for row in rows {
                guard let hook = Self.hook(row, code: code) else { continue }
                for event in events { dispatcher.deliver(event, to: hook) }
            }
        }
    }

    private static func storeStatus(_ key: String, _ status: WebhookStatus, client: RedisClient) {
        guard let slash = key.firstIndex(of: "/") else { return }
        let code = String(key[..<slash]), id = String(key[key.index(after: slash)...])
        let text = json(status).canonicalString
        client.loop.execute {
            // Only while the hook exists: a status written after its deletion would linger.
            client.send(["EVAL", "if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end return 1",
                         "2", hooksKey(code), statusKey(code), id, text]) { _ in }
        }
    }

    // MARK: Shapes

    static func hook(_ row: WebhookRow, code: String) -> WebhookHook? {
        guard case .success(let target) = WebhookTarget.parse(row.url), let format = WebhookFormat(rawValue: row.format) else { return nil }
        let events = Set(row.events.split(separator: ",").compactMap { WebhookEvent.Kind(rawValue: String($0)) })
        return WebhookHook(id: queueKey(code: code, id: row.id), target: target, format: format, secret: row.secret,
                           events: events, language: row.language)
    }

    /// The hook as the API lists it (no secret), or as Redis keeps it (`withSecret`).
    static func json(_ row: WebhookRow, withSecret: Bool = false) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(row.id), "url": .string(row.url), "format": .string(row.format),
            "events": .array(row.events.split(separator: ",").map { .string(String($0)) }),
            "language": .string(row.language), "createdAt": .int(row.createdAt),
        ]
        if withSecret { object["secret"] = .string(row.secret) }
        return .object(object)
    }

    static func row(json text: String) -> WebhookRow? {
        guard let json = try? JSONValue.parse(Array(text.utf8)), let id = json["id"]?.stringValue, let url = json["url"]?.stringValue,
              let format = json["format"]?.stringValue, let secret = json["secret"]?.stringValue else { return nil }
        let events = (json["events"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ",")
        return WebhookRow(id: id, url: url, format: format, events: events, language: json["language"]?.stringValue ?? "en",
                          secret: secret, createdAt: json["createdAt"]?.intValue ?? 0)
    }

    /// `{"status","error","at","delivered","failed","dropped","pending"}`: the last attempt's
    /// HTTP status (0: no answer; null: none yet) and error, and the counts.
    static func json(_ status: WebhookStatus) -> JSONValue {
        .object([
            "status": status.lastStatus.map { .int(Int64($0)) } ?? .null,
            "error": status.lastError.map { .string($0) } ?? .null,
            "at": status.lastAttemptAt.map { .int($0) } ?? .null,
            "delivered": .int(Int64(status.delivered)), "failed": .int(Int64(status.failed)),
            "dropped": .int(Int64(status.dropped)), "pending": .int(Int64(status.pending)),
        ])
    }
}

/// The server's webhook registry, installed when the service opens (nil in unit tests that make rooms alone).
enum ServerWebhooks {
    private static let installed = Lock<WebhookRegistry?>(nil)

    static var registry: WebhookRegistry? { installed.withLock { $0 } }

    static func install(_ registry: WebhookRegistry?) { installed.withLock { $0 = registry } }
}
