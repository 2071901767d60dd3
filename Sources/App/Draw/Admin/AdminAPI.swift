import Server
import HTTPCore
import JSON
import Storage

/// The admin's REST endpoints, behind the admin key (docs/openapi.yaml, tag `admin`):
/// `GET /api/draws` (paged list), `POST /api/draws/<code>/archive` / `unarchive`,
/// `DELETE /api/draws/<code>`. Cluster mode answers `501 not_supported`.
enum AdminAPI {
    static let defaultPageSize = 50
    static let maxPageSize = 200

    /// Whether the request passed the admin key check (else it was answered).
    private static func admitted(_ request: HTTPRequest, responder: Responder, service: DrawService) -> Bool {
        guard DrawAPI.admits(request, responder: responder, service: service, admin: true, check: service.adminKeyHash.matches) else {
            return false
        }
        if service.cluster != nil {
            responder.respond(APIError.response("not_supported"))
            return false
        }
        return true
    }

    /// `GET /api/draws?limit=N&after=CODE`: draws newest first; `next` is the `after` of the next page.
    static func list(_ request: HTTPRequest, responder: Responder, service: DrawService) {
        guard admitted(request, responder: responder, service: service) else { return }
        let query = request.head.query
        var limit = defaultPageSize
        if let text = QueryString.value(of: "limit", in: query) {
            guard text.utf8.count <= 4, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int(text),
                  (1...maxPageSize).contains(n) else {
                return responder.respond(APIError.response("bad_page", message: pageMessage))
            }
            limit = n
        }
        let after = QueryString.value(of: "after", in: query)
        if let after, !DrawKeys.isValidCode(after) {
            return responder.respond(APIError.response("bad_page", message: pageMessage))
        }
        service.listDraws(limit: limit + 1, after: after) { [limit] result in
            switch result {
            case .success(let rows):
                // Each draw's retention (what will be erased when), read after the page (RetentionSweep.swift).
                service.retentionStatuses { retention in
                    let statuses = (try? retention.get()) ?? [:]
                    let page = rows.prefix(limit)
                    let draws: [JSONValue] = page.map { row in
                        .object([
                            "code": .string(row.code), "title": row.title.map { .string($0) } ?? .null,
                            "created": .int(Int64(row.createdAt * 1000)), "rounds": .int(Int64(row.rounds)),
                            "lastActivity": .int(Int64(row.lastActivity * 1000)), "archived": .bool(row.archivedAt != nil),
                            "retention": statuses[row.code]?.json ?? .null,
                        ])
                    }
                    let next: JSONValue = rows.count > limit ? .string(page.last!.code) : .null
                    responder.respond(APIError.json(.object(["draws": .array(draws), "next": next])))
                }
            case .failure(let error as StorageError) where error.code == .notFound:
                responder.respond(APIError.response("bad_page", message: pageMessage))
            case .failure(let error):
                responder.respond(APIError.response(DrawPersistence.errorCode(error)))
            }
        }
    }

    static let pageMessage = "limit must be a whole number from 1 to \(maxPageSize), and after the code of a listed draw (the previous page's next)."

    /// `POST /api/draws/<code>/archive` or `/unarchive`.
    static func archive(_ archived: Bool, code: String, _ request: HTTPRequest, responder: Responder, service: DrawService) {
        guard admitted(request, responder: responder, service: service) else { return }
        service.setArchived(archived, code: code) { result in
            respond(result, responder: responder) { .object(["ok": .bool(true), "code": .string($0), "archived": .bool(archived)]) }
        }
    }

    /// `DELETE /api/draws/<code>`.
    static func delete(code: String, _ request: HTTPRequest, responder: Responder, service: DrawService) {
        guard admitted(request, responder: responder, service: service) else { return }
        service.deleteDraw(code: code) { result in
            respond(result, responder: responder) { .object(["ok": .bool(true), "code": .string($0), "deleted": .bool(true)]) }
        }
    }

    private static func respond(_ result: Result<String, DrawService.AdminFailure>, responder: Responder,
                                body: (String) -> JSONValue) {
        switch result {
        case .success(let code): responder.respond(APIError.json(body(code)))
        case .failure(.refused(let code)): responder.respond(APIError.response(code))
        }
    }
}
