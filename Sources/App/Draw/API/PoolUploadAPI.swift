import DrawRoomCore
import DrawEngine
import HTTPCore
import JSON
import Server

/// Big pools over REST (docs/openapi.yaml): a draw's host may send bodies up to
/// `--max-pool-bytes` to `PUT /api/draws/<code>/config`, `PUT /api/draws/<code>/pool` and
/// `POST /api/draws/<code>/import`; every other request keeps the server's 1 MiB limit.
enum PoolUploadAPI {
    /// The routes whose bodies may be as large as a pool: (method, last path segment).
    static let routes: Set<[String]> = [["PUT", "config"], ["PUT", "pool"], ["POST", "import"]]

    /// The larger limit, decided from the head before the body is buffered, so a client without
    /// the host key can never make the server hold more than 1 MiB of its body. The key is
    /// checked with the shared rate limit exactly as the handler would (a wrong one spends a
    /// token), so a 413 tells a guesser no more than a 401 would.
    static func bodyLimit(_ head: HTTPRequestHead, client: String, service: DrawService) -> Int? {
        let segments = head.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard segments.count == 5, segments[1] == "api", segments[2] == "draws",
              routes.contains([head.method, segments[4]]),
              isHost(head, code: segments[3], client: client, service: service) else { return nil }
        return service.settings.maxPoolBytes
    }

    /// Whether the head carries draw `code`'s host key, checked with the shared rate limit
    /// exactly as the handler would (a wrong key spends a token).
    static func isHost(_ head: HTTPRequestHead, code: String, client: String, service: DrawService) -> Bool {
        guard let room = service.room(code), let key = DrawAPI.bearer(head.headers), service.limiter.allows(client) else { return false }
        guard room.isHostKey(key) else {
            service.limiter.recordFailure(client)
            service.metrics.authFailures.increment()
            return false
        }
        return true
    }

    /// `PUT /api/draws/<code>/pool[?duplicates=merge]`: the body is the spreadsheet itself (CSV
    /// or pasted TSV, with a header row naming name / id / tickets / group, or one name per line),
    /// read exactly as the import preview reads it. A file with rejected rows or repeated
    /// entrants changes nothing (`422 import_rejected` with the preview's reasons); otherwise it
    /// becomes the pool, the other settings kept, as one `configure`.
    static func replacePool(_ request: HTTPRequest, room: any DrawChannel, responder: Responder) {
        let policy: EntrantImport.DuplicatePolicy
        switch QueryString.value(of: "duplicates", in: request.head.query) {
        case nil, "reject": policy = .reject
        case "merge": policy = .merge
        default: return responder.respond(APIError.response("bad_message"))
        }
        let preview: EntrantImport.Preview
        do {
            preview = try EntrantImport.preview(of: request.body, duplicates: policy)
        } catch {
            return responder.respond(EntrantImportAPI.errorResponse(error))
        }
        guard preview.rejectedCount == 0 else {
            var summary = EntrantImportAPI.json(preview, withEntrants: false).objectValue ?? [:]
            summary["code"] = .string("import_rejected")
            summary["message"] = .string(DrawErrorText.message(for: "import_rejected"))
            var response = HTTPResponse.json(.unprocessableContent, JSONValue.object(["error": .object(summary)]).canonicalBytes)
            response.headers.add(name: "Cache-Control", value: "no-store")
            return responder.respond(response)
        }
        let count = preview.entrants.count
        let tickets = preview.tickets
        room.perform(.replacePool(.entries(preview.entrants)), seq: nil, client: nil, awaitReveal: false,
                     as: OperatorGate.operatorOf(request, room: room)) { outcome in
            switch outcome {
            case .success(let reply):
                responder.respond(APIError.ack(reply.ack, adding: ["count": .int(Int64(count)), "tickets": .int(Int64(tickets))]))
            case .failure(let failure):
                responder.respond(APIError.response(failure.code))
            }
        }
    }
}
