import DrawRoomCore
import HTTPCore
import JSON
import Server
import Storage

/// `GET /api/draws/<code>/audit`: the draw's audit log for its host as JSON, a page at a time
/// (`?after=<index>&limit=<n>`; docs/PROTOCOL.md, "The audit log"). Single box reads SQLite
/// (`audit`), cluster mode the draw's stream in Redis (`{d:CODE}:audit`), so every instance
/// answers alike. Each entry carries what its hash covers, so a reader can
/// recompute the chain. The downloads (`audit.csv`, `audit.xlsx`) are AuditExport's, with the
/// same `after` and `limit`.
enum AuditAPI {
    /// Default and largest `limit` of a page.
    static let jsonPage = (standard: 100, most: 1_000)
    /// Largest `limit` of a download (`audit.csv`, `audit.xlsx`; absent: the whole log).
    static let downloadMost = 100_000

    /// `after` (the index of the last entry the reader has; absent: from the first) and
    /// `limit` (1…`most`; absent: nil) from a query; `bad_cursor` / `bad_limit` otherwise.
    static func window(_ query: String?, most: Int) -> Result<(after: Int?, limit: Int?), CommandFailure> {
        var after: Int?
        if let text = QueryString.value(of: "after", in: query) {
            guard let value = BoardAPI.digits(text) else { return .failure(CommandFailure(code: "bad_cursor")) }
            after = value
        }
        var limit: Int?
        if let text = QueryString.value(of: "limit", in: query) {
            guard let value = BoardAPI.digits(text), (1...most).contains(value) else { return .failure(CommandFailure(code: "bad_limit")) }
            limit = value
        }
        return .success((after, limit))
    }

    /// `rest`: `[code, "audit"]`.
    static func serve(_ rest: [String], request: HTTPRequest, method: String, room: any DrawChannel,
                      responder: Responder, service: DrawService) {
        guard method == "GET" else { return responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD"])) }
        guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
        let after: Int?
        let limit: Int
        switch window(request.head.query, most: jsonPage.most) {
        case .success(let value): (after, limit) = (value.after, value.limit ?? jsonPage.standard)
        case .failure(let failure): return responder.respond(APIError.response(failure.code))
        }
        let code = room.code
        // One more than asked: whether a next page exists.
        service.auditPage(code: code, after: after, limit: limit + 1) { [limit] result in
            switch result {
            case .failure(let failure):
                responder.respond(APIError.response(failure.code))
            case .success(var entries):
                let more = entries.count > limit
                if more { entries.removeLast() }
                let next = more ? entries.last?.index : nil
                responder.respond(jsonResponse(entries, code: code, next: next))
            }
        }
    }

    static func jsonResponse(_ entries: [AuditEntryRead], code: String, next: Int?) -> HTTPResponse {
        let body: JSONValue = .object([
            "code": .string(code), "entries": .array(entries.map(\.json)),
            "next": next.map { .int(Int64($0)) } ?? .null,
        ])
        return APIError.json(body)
    }
}

/// One audit entry as the API shows it: the fields its hash covers (with the draw's code) and the hash.
struct AuditEntryRead: Sendable {
    var index: Int
    /// Unix milliseconds, as hashed.
    var at: Int64
    var actor: String
    var action: String
    var detail: JSONValue
    var prev: String
    var hash: String

    var json: JSONValue {
        .object([
            "index": .int(Int64(index)), "at": .int(at), "actor": .string(actor), "action": .string(action),
            "detail": detail, "prev": .string(prev), "hash": .string(hash),
        ])
    }

    /// From SQLite (single box): `at` is kept in seconds there.
    init(row: AuditRow) {
        index = row.index
        at = Int64((row.at * 1000).rounded())
        actor = row.actor
        action = row.action
        detail = (try? JSONValue.parse(Array(row.detailJSON.utf8))) ?? .object([:])
        prev = row.prevHash
        hash = row.hash
    }

    /// From the stream (cluster mode): its canonical body; nil when it cannot be read.
    init?(body: String, hash: String) {
        guard let json = try? JSONValue.parse(Array(body.utf8)), let index = json["index"]?.intValue,
              let at = json["at"]?.intValue, let actor = json["actor"]?.stringValue,
              let action = json["action"]?.stringValue, let prev = json["prev"]?.stringValue else { return nil }
        self.index = Int(index)
        self.at = at
        self.actor = actor
        self.action = action
        detail = json["detail"] ?? .object([:])
        self.prev = prev
        self.hash = hash
    }
}

extension DrawService {
    /// A page of draw `code`'s audit log: entries above `after`, at most `limit`, oldest first.
    func auditPage(code: String, after: Int?, limit: Int,
                   _ completion: @escaping @Sendable (Result<[AuditEntryRead], CommandFailure>) -> Void) {
        if let cluster {
            let audit = cluster.audit
            cluster.loop.execute {
                audit.stream.page(draw: code, after: after, limit: limit) { result in
                    switch result {
                    case .success(let items):
                        let entries = items.compactMap { AuditEntryRead(body: $0.json, hash: $0.hash) }
                        guard entries.count == items.count else { return completion(.failure(CommandFailure(code: "cluster_unavailable"))) }
                        completion(.success(entries))
                    case .failure:
                        completion(.failure(CommandFailure(code: "cluster_unavailable")))
                    }
                }
            }
            return
        }
        storage.async({ database in
            try database.loadAudit(drawCode: code, after: after, limit: limit).map(AuditEntryRead.init(row:))
        }, completion: { result in
            completion(result.mapError { CommandFailure(code: DrawPersistence.errorCode($0)) })
        })
    }
}
