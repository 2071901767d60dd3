import DrawRoomCore
import Crypto
import HTTPCore
import JSON
import Server

/// The board, paged (docs/PROTOCOL.md, "The board, paged"): `GET /api/draws/<code>/rounds` (the
/// rounds' summaries, newest first) and `GET /api/draws/<code>/rounds/<round>/winners` (one
/// round's current winners in board order). Public; checked-in entrants' names only when the
/// host made them public, or with the host key. The `state` snapshot lists the first winners of
/// the latest rounds (`BoardSummary`); pages read the rest here.
enum BoardAPI {
    /// Default and largest `limit` of a winners page.
    static let winnersPage = (standard: 200, most: 1_000)
    /// Default and largest `limit` of a rounds page.
    static let roundsPage = (standard: 50, most: 200)
    /// `offset` beyond this is refused (no board holds that many).
    static let largestOffset = 100_000_000

    /// `rest`: the path after `/api/draws/`, starting with the code (`[code, "rounds", …]`).
    static func serve(_ rest: [String], request: HTTPRequest, method: String, room: any DrawChannel,
                      responder: Responder, service: DrawService) {
        guard method == "GET" else { return responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD"])) }
        var round: Int?
        if rest.count == 4, rest[3] == "proof" {
            return EntryProofAPI.serve(round: rest[2], request: request, room: room, cache: service.entryProofs, responder: responder)
        }
        if rest.count == 4 {
            guard rest[3] == "winners" else { return responder.respond(APIError.response("not_found")) }
            guard let number = digits(rest[2]), number > 0 else {
                return responder.respond(APIError.response("unknown_round", status: .notFound))
            }
            round = number
        }
        let limits = round == nil ? roundsPage : winnersPage
        let query = request.head.query
        guard let offset = parameter("offset", in: query, default: 0, range: 0...largestOffset),
              let limit = parameter("limit", in: query, default: limits.standard, range: 1...limits.most) else {
            return responder.respond(APIError.response("bad_page"))
        }
        // With a key it must be the host's (rate-limited like every key); the host sees names.
        let host = request.head.headers["Authorization"] != nil
        if host, !DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) { return }
        let headers = request.head.headers
        room.boardPage(BoardPageRequest(round: round, offset: offset, limit: limit, host: host)) { answer in
            switch answer {
            case nil: responder.respond(APIError.response(room is DrawRoom ? "storage_failed" : "cluster_unavailable"))
            case .unknownRound?: responder.respond(APIError.response("unknown_round", status: .notFound))
            case .page(let page)?: responder.respond(response(page, to: headers, host: host))
            }
        }
    }

    /// The page with an `ETag` of its bytes: a page that did not change (no void, no new round in
    /// it, no Clear) revalidates to `304`. Pages must revalidate (`no-cache`): a void changes a round.
    static func response(_ page: JSONValue, to headers: HTTPHeaders, host: Bool) -> HTTPResponse {
        let body = page.canonicalBytes
        let etag = "\"" + SHA256.hexDigest(body).prefix(32) + "\""
        var response = ifNoneMatch(headers["If-None-Match"], matches: etag) ? HTTPResponse(status: .notModified) : HTTPResponse.json(.ok, body)
        response.headers.add(name: "ETag", value: etag)
        response.headers.add(name: "Cache-Control", value: host ? "private, no-cache" : "no-cache")
        response.headers.add(name: "Vary", value: "Authorization")
        return response
    }

    /// A query parameter of decimal digits only (no sign, no spaces) inside `range`; absent: `default`;
    /// anything else: nil.
    static func parameter(_ name: String, in query: String?, default fallback: Int, range: ClosedRange<Int>) -> Int? {
        guard let text = QueryString.value(of: name, in: query) else { return fallback }
        guard let value = digits(text), range.contains(value) else { return nil }
        return value
    }

    /// A string of 1–10 decimal digits as a number, else nil.
    static func digits(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }
}

extension DrawRoom {
    func boardPage(_ request: BoardPageRequest, _ completion: @escaping @Sendable (BoardPageAnswer?) -> Void) {
        // nil (answered 503) also when the draw could not be read, so no request waits forever.
        whenReady({ [self] in completion(state.boardPage(request)) }, otherwise: { completion(nil) })
    }
}
