import DrawRoomCore
import RedisStore
import DrawEngine
import HTTPCore
import JSON
import Server

/// Check-in over REST (docs/PROTOCOL.md "Check-in", docs/openapi.yaml): phones join and read
/// their entry with the device cookie; the host opens and closes entries, lists, removes and
/// erases entrants with the host key. Everything reaches the room on its loop.
enum CheckinAPI {
    /// Routes under `/api/draws/<code>/`; false when `rest` is not a check-in path. `room` is
    /// the single-box room, or in cluster mode the draw's node (which asks the owner).
    static func route(_ rest: [String], method: String, request: HTTPRequest, room: any CheckinChannel, responder: Responder,
                      service: DrawService) -> Bool {
        switch (rest.count, rest.dropFirst().first) {
        case (2, "join"):
            guard method == "POST" else { responder.respond(APIError.methodNotAllowed(allow: ["POST"])); return true }
            join(request, room: room, responder: responder)
        case (2, "claim"):
            guard method == "POST" else { responder.respond(APIError.methodNotAllowed(allow: ["POST"])); return true }
            // The phone that checked in claims its win (#26): its device cookie says who it is.
            guard let token = DeviceToken.token(in: request.head.headers) else {
                responder.respond(failure(CommandFailure(code: "not_winner")))
                return true
            }
            room.checkinClaim(device: DeviceToken.hash(token)) { outcome in
                switch outcome {
                case .success(let reply): responder.respond(APIError.json(reply.ack))
                case .failure(let error): responder.respond(failure(error))
                }
            }
        case (2, "entry"):
            guard method == "GET" else { responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD"])); return true }
            // No entry is an ordinary answer (`"entry":null`), not an error: every viewer page asks.
            guard let token = DeviceToken.token(in: request.head.headers) else {
                responder.respond(APIError.json(.object(["entry": .null])))
                return true
            }
            read(.entry(device: DeviceToken.hash(token)), room: room, responder: responder)
        case (3, "entries") where rest[2] == "pool":
            guard method == "GET" else { responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD"])); return true }
            // The public ids of the pool as locked now (what `poolHash` covers), for verifiers and pages.
            read(.pool, room: room, responder: responder)
        case (3, "entries") where rest[2] == "open" || rest[2] == "close":
            guard method == "POST" else { responder.respond(APIError.methodNotAllowed(allow: ["POST"])); return true }
            hostOnly(request, room: room, responder: responder, service: service) {
                if rest[2] == "close" { return .close }
                guard let body = DrawAPI.body(request) else { throw CommandFailure(code: "bad_json") }
                guard body.objectValue?.isEmpty == false else { return .open(nil) }
                guard let settings = CheckinSettings.parse(body, base: CheckinSettings()) else { throw CommandFailure(code: "bad_settings") }
                return .open(settings)
            }
        case (3, "entries") where rest[2] == "presence":
            guard method == "GET" else { responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD"])); return true }
            guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return true }
            read(.presence, room: room, responder: responder)
        case (2, "entrants.xlsx"):
            guard method == "GET" else { responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD"])); return true }
            entrantsWorkbook(request, room: room, responder: responder, service: service)
        case (2, "entrants"), (2, "entrants.csv"):
            guard method == "GET" else { responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD"])); return true }
            list(request, csv: rest[1] == "entrants.csv", room: room, responder: responder, service: service)
        case (3, "entrants") where rest[2] == "erase":
            guard method == "POST" else { responder.respond(APIError.methodNotAllowed(allow: ["POST"])); return true }
            hostOnly(request, room: room, responder: responder, service: service) { .erase }
        case (3, "entrants"):
            guard method == "DELETE" else { responder.respond(APIError.methodNotAllowed(allow: ["DELETE"])); return true }
            hostOnly(request, room: room, responder: responder, service: service) {
                guard let body = DrawAPI.body(request) else { throw CommandFailure(code: "bad_json") }
                guard let reason = body["reason"]?.stringValue else { throw CommandFailure(code: "bad_reason") }
                return .remove(id: rest[2], reason: CheckinForm.clean(reason))
            }
        default:
            return false
        }
        return true
    }

    /// `{"error":{"code","message", …detail}}` with the code's status.
    static func failure(_ failure: CommandFailure) -> HTTPResponse {
        var error: [String: JSONValue] = ["code": .string(failure.code), "message": .string(DrawErrorText.message(for: failure.code))]
        for (key, value) in failure.detail?.objectValue ?? [:] { error[key] = value }
        var response = APIError.json(.object(["error": .object(error)]), status: APIError.status(for: failure.code))
        if failure.code == "rate_limited" { response.headers.add(name: "Retry-After", value: "2") }
        return response
    }

    private static func read(_ query: CheckinQuery, room: any CheckinChannel, responder: Responder) {
        room.checkinRead(query) { outcome in
            switch outcome {
            case .success(let body): responder.respond(APIError.json(body))
            case .failure(let error): responder.respond(failure(error))
            }
        }
    }

    private static func hostOnly(_ request: HTTPRequest, room: any CheckinChannel, responder: Responder, service: DrawService,
                                 command: () throws -> CheckinCommand) {
        guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
        let parsed: CheckinCommand
        do { parsed = try command() } catch let error as CommandFailure { return responder.respond(failure(error)) } catch {
            return responder.respond(APIError.response("bad_message"))
        }
        room.perform(.checkin(parsed), seq: nil, client: nil, awaitReveal: false, as: OperatorGate.operatorOf(request, room: room)) { outcome in
            switch outcome {
            case .success(let reply):
                responder.respond(APIError.ack(reply.ack))
            case .failure(let error):
                responder.respond(failure(error))
            }
        }
    }

    // MARK: Phones

    private static func join(_ request: HTTPRequest, room: any CheckinChannel, responder: Responder) {
        guard request.body.count <= CheckinForm.maxBodyBytes else { return responder.respond(APIError.response("too_large")) }
        let joinKey: String?
        do { joinKey = try DeviceToken.joinKey(in: request.head.headers) } catch { return responder.respond(failure(error)) }
        let address = responder.remoteAddress
        let limits = room.checkinLimits
        guard limits.attempts.allows(address) else { return responder.respond(failure(CommandFailure(code: "rate_limited"))) }
        limits.attempts.recordFailure(address)  // every attempt spends: a flood from one address is slowed
        let existing = DeviceToken.token(in: request.head.headers)
        // A phone without a cookie that sends a key gets the key's token: its retry is the same device.
        let token = existing ?? joinKey.map(DeviceToken.token(forJoinKey:)) ?? DeviceToken.newToken()
        let device = DeviceToken.hash(token)
        guard let json = try? JSONValue.parse(request.body), json.objectValue != nil else {
            return responder.respond(failure(CommandFailure(code: "bad_json")))
        }
        // Guessing presence codes is limited per address and per device (a join without a code is
        // not a guess: it is refused `bad_code` when the draw needs one, which counts as a failure).
        if json["code"] != nil, !(limits.codes.allows(address) && limits.deviceCodes.allows(device)) {
            return responder.respond(failure(CommandFailure(code: "rate_limited")))
        }
        let secure = responder.client.baseURL?.hasPrefix("https:") ?? false
        @Sendable func withCookie(_ response: HTTPResponse) -> HTTPResponse {
            var response = response
            if existing == nil { response.headers.add(name: "Set-Cookie", value: DeviceToken.setCookie(token, secure: secure)) }
            return response
        }
        room.checkinJoin(json, device: device) { outcome in
            switch outcome {
            case .success(let reply):
                let body: JSONValue = .object(["ok": .bool(true), "entry": reply.ack["entry"] ?? .null])
                responder.respond(withCookie(APIError.json(body, status: .created)))
            case .failure(let error):
                if error.code == "bad_code" {
                    limits.codes.recordFailure(address)
                    limits.deviceCodes.recordFailure(device)
                }
                responder.respond(withCookie(failure(error)))
            }
        }
    }

    // MARK: Host list

    /// Every entrant as `.xlsx`, the same cells as `entrants.csv` (read from the book's export,
    /// which both modes answer, rather than from the CSV text).
    private static func entrantsWorkbook(_ request: HTTPRequest, room: any CheckinChannel, responder: Responder, service: DrawService) {
        guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
        let code = room.code
        room.checkinRead(.export) { outcome in
            switch outcome {
            case .success(let book):
                ExportTable.respondOffLoop(format: "xlsx", fileName: "tombola-\(code)-entrants", sheetName: "Entrants \(code)",
                                           responder: responder) { CheckinCSV.table(export: book) }
            case .failure(let error):
                responder.respond(failure(error))
            }
        }
    }

    private static func list(_ request: HTTPRequest, csv: Bool, room: any CheckinChannel, responder: Responder, service: DrawService) {
        guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
        let query = request.head.query
        // Trimmed and NFC-normalised here, as names are when they join: the room compares as given.
        let search = String(CheckinForm.clean(QueryString.value(of: "q", in: query) ?? "").prefix(200))
        let offset = max(0, Int(QueryString.value(of: "offset", in: query) ?? "") ?? 0)
        let limit = min(200, max(1, Int(QueryString.value(of: "limit", in: query) ?? "") ?? 50))
        let removed = QueryString.value(of: "removed", in: query) == "1"
        let code = room.code
        room.checkinRead(.list(search: search, offset: offset, limit: limit, removed: removed, csv: csv)) { outcome in
            let body: JSONValue
            switch outcome {
            case .success(let value): body = value
            case .failure(let error): return responder.respond(failure(error))
            }
            guard csv else { return responder.respond(APIError.json(body)) }
            var response = HTTPResponse(status: .ok, headers: ["Content-Type": "text/csv; charset=utf-8"],
                                        body: Array((body["csv"]?.stringValue ?? "").utf8))
            response.headers.add(name: "Content-Disposition", value: "attachment; filename=\"tombola-\(code)-entrants.csv\"")
            response.headers.add(name: "Cache-Control", value: "no-store")
            responder.respond(response)
        }
    }
}

/// Per-room limits on check-in attempts: every join spends a token per address (a flood is
/// slowed, a hall behind one NAT address still fits: 1,000, then 500 a second), and wrong
/// presence codes spend one per address and per device.
final class CheckinLimits: Sendable {
    let attempts = AuthRateLimiter(burst: 1000, refill: .milliseconds(2))
    /// 30 wrong codes, then one every 500 ms: about 80 guesses in the 40 s a code lives, against
    /// 10,000 codes (and per device 5, then one every 2 s).
    let codes = AuthRateLimiter(burst: 30, refill: .milliseconds(500))
    let deviceCodes = AuthRateLimiter(burst: 5, refill: .seconds(2))

    /// Cluster mode: the three limits hold across the instances (buckets `join:`, `code:` and
    /// `device:` with the draw's code, in Redis).
    func share(_ limits: SharedRateLimits, draw code: String) {
        attempts.share(limits, as: "join:" + code)
        codes.share(limits, as: "code:" + code)
        deviceCodes.share(limits, as: "device:" + code)
    }
}
