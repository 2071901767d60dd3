import DrawRoomCore
import Server
import DrawEngine
import HTTPCore
import JSON
import Storage

/// The REST face of the draw rooms (docs/openapi.yaml). Commands go through the same
/// parser and the same room queue as WebSocket messages, so they validate the same way.
enum DrawAPI {
    static func install(into router: inout Router, service: DrawService) {
        router.handle(prefix: "/api/draws") { request, responder in
            route(request, responder: responder, service: service)
        }
        router.bodyLimit(prefix: "/api/draws/") { head, client in
            PoolUploadAPI.bodyLimit(head, client: client, service: service) ?? PrizeMediaAPI.bodyLimit(head, client: client, service: service)
        }
        router.handle("/api/info") { _, responder in
            let info: JSONValue = .object(["defaultDraw": .string(service.defaultDraw.code), "lanUrl": .string(responder.client.baseURL ?? service.baseURL),
                                           "version": .string(DrawService.version)])
            responder.respond(APIError.json(info))
        }
        // The key every record is signed with (issue #47, docs/FAIRNESS.md §17): what a reader checks an export against.
        router.handle("/api/server/key") { _, responder in
            guard let document = ServerSigning.keyDocument(service.settings.signer) else { return responder.respond(APIError.response("not_found")) }
            responder.respond(APIError.json(document))
        }
        router.handle("/api/qr") { request, responder in
            guard let text = QueryString.value(of: "text", in: request.head.query), let svg = QRCodeSVG.render(text) else {
                responder.respond(APIError.response("bad_text"))
                return
            }
            var response = HTTPResponse(status: .ok, headers: ["Content-Type": "image/svg+xml"], body: Array(svg.utf8))
            response.headers.add(name: "Cache-Control", value: "public, max-age=3600")
            responder.respond(response)
        }
    }

    private static func route(_ request: HTTPRequest, responder: Responder, service: DrawService) {
        let head = request.head
        let segments = head.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard segments.count >= 2, segments[0] == "api", segments[1] == "draws" else {
            responder.respond(APIError.response("not_found"))
            return
        }
        let rest = Array(segments.dropFirst(2))
        let method = head.method == "HEAD" ? "GET" : head.method
        if rest.isEmpty || rest == [""] {
            if method == "GET" { return AdminAPI.list(request, responder: responder, service: service) }
            guard method == "POST" else { return responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD", "POST"])) }
            create(request, responder: responder, service: service)
            return
        }
        if rest.count == 1, method == "DELETE" { return AdminAPI.delete(code: rest[0], request, responder: responder, service: service) }
        if rest.count == 2, rest[1] == "archive" || rest[1] == "unarchive" {
            guard method == "POST" else { return responder.respond(APIError.methodNotAllowed(allow: ["POST"])) }
            return AdminAPI.archive(rest[1] == "archive", code: rest[0], request, responder: responder, service: service)
        }
        guard let room = service.room(rest[0]) else {
            responder.respond(APIError.response("unknown_draw"))
            return
        }
        // An archived draw is read-only over REST (WebSocket commands meet the same refusal in the room).
        if method != "GET", service.isArchived(room.code) { return responder.respond(APIError.response("draw_archived")) }
        if let checkin = room as? any CheckinChannel,
           CheckinAPI.route(rest, method: method, request: request, room: checkin, responder: responder, service: service) { return }
        switch (rest.count, rest.dropFirst().first) {
        case (1, _):
            guard method == "GET" else { return responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD", "DELETE"])) }
            // nil: a cluster instance cannot know it now, or (single box) the draw could not be read.
            let unavailable = room is DrawRoom ? "storage_failed" : "cluster_unavailable"
            room.currentState { responder.respond($0.map { APIError.json(text: $0) } ?? APIError.response(unavailable)) }
        case (2, "export.json"), (2, "export.csv"), (2, "export.xlsx"):
            guard method == "GET" else { return responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD"])) }
            // With the host key, the JSON export carries the check-in entrants too (personal data: never
            // public), and the CSV the winners' names even where the host does not show names.
            var withEntrants = false
            if request.head.headers["Authorization"] != nil {
                guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
                withEntrants = true
            }
            // `?from=N` (JSON): only the records from index N on, the piece of the chain a page's witness reads.
            guard let from = BoardAPI.parameter("from", in: request.head.query, default: 0, range: 0...Int(Int32.max)) else {
                return responder.respond(APIError.response("bad_page"))
            }
            if rest[1] != "export.json" {
                let language = QueryString.value(of: "lang", in: request.head.query) ?? "en"
                let format = rest[1] == "export.xlsx" ? "xlsx" : "csv"
                return exportCSV(room, host: withEntrants, language: language, format: format, responder: responder)
            }
            export(room, withEntrants: withEntrants, from: from, signer: service.settings.signer, responder: responder)
        case (2, "auditpack.zip"):
            // The auditor's pack (issue #41): the host export, the audit log, certificates, key, identity, summary.
            guard method == "GET" else { return responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD"])) }
            guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
            // `?event=1`: the draws linked through `excludeWinnersOf` too (EventPack.swift: why this key is enough).
            if QueryString.value(of: "event", in: request.head.query) == "1" { return EventPack.respond(room, service: service, responder: responder) }
            AuditPack.respond(room, service: service, responder: responder)
        case (2, "audit.csv"), (2, "audit.xlsx"):
            // The audit log: the host's (its entries name removed entrants and the reasons given).
            guard method == "GET" else { return responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD"])) }
            guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
            // A piece of the log, as `…/audit` pages it (`after`, `limit`); absent: all of it.
            let window: (after: Int?, limit: Int?)
            switch AuditAPI.window(request.head.query, most: AuditAPI.downloadMost) {
            case .success(let value): window = value
            case .failure(let failure): return responder.respond(APIError.response(failure.code))
            }
            AuditExport.respond(code: room.code, format: rest[1] == "audit.xlsx" ? "xlsx" : "csv", after: window.after, limit: window.limit,
                                service: service, responder: responder)
        case (2, "config"):
            if method == "GET" {
                // The full settings (the names the `state` summary leaves out), cached and validated by ETag.
                let headers = head.headers
                let unavailable = room is DrawRoom ? "storage_failed" : "cluster_unavailable"
                return room.settingsDocument { document in
                    responder.respond(document?.response(to: headers) ?? APIError.response(unavailable))
                }
            }
            guard method == "PUT" else { return responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD", "PUT"])) }
            command("configure", request, room: room, responder: responder, service: service)
        case (2, "private"), (2, "receipts.csv"), (2, "receipts.xlsx"):
            guard method == "GET" else { return responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD"])) }
            PrivateRosterAPI.serve(request, csvFormat: rest[1] == "private" ? nil : rest[1] == "receipts.xlsx" ? "xlsx" : "csv",
                                   room: room, responder: responder, service: service)
        case (2, "import"):
            guard method == "POST" else { return responder.respond(APIError.methodNotAllowed(allow: ["POST"])) }
            guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
            responder.respond(EntrantImportAPI.preview(request))
        case (2, "handover"), (2, "handovers"):
            HandoverAPI.route(rest[1], method: method, request: request, room: room, responder: responder, service: service)
        case (2, "branding"):
            BrandingAPI.branding(request, method: method, room: room, responder: responder, service: service)
        case (2, "logo"):
            BrandingAPI.logo(request, method: method, room: room, responder: responder, service: service)
        case (4, "prizes"):
            PrizeMediaAPI.serve(rest, request: request, method: method, room: room, responder: responder, service: service)
        case (2, "operators"), (3, "operators"):
            OperatorAPI.serve(rest, request: request, method: method, room: room, responder: responder, service: service)
        case (2, "webhooks"), (3, "webhooks"):
            WebhookAPI.serve(rest, request: request, method: method, room: room, responder: responder, service: service)
        case (2, "audit"):
            AuditAPI.serve(rest, request: request, method: method, room: room, responder: responder, service: service)
        case (2, "rounds"), (4, "rounds"):
            BoardAPI.serve(rest, request: request, method: method, room: room, responder: responder, service: service)
        case (2, "pool"):
            guard method == "PUT" else { return responder.respond(APIError.methodNotAllowed(allow: ["PUT"])) }
            guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
            PoolUploadAPI.replacePool(request, room: room, responder: responder)
        case (2, let name?) where ["start", "stop", "clear", "void"].contains(name):
            guard method == "POST" else { return responder.respond(APIError.methodNotAllowed(allow: ["POST"])) }
            command(name, request, room: room, responder: responder, service: service)
        case (2, "signoffs"):
            // An observer's sign-off of a round's lock or result (issue #41); the room refuses any other role.
            guard method == "POST" else { return responder.respond(APIError.methodNotAllowed(allow: ["POST"])) }
            command("signoff", request, room: room, responder: responder, service: service)
        case (3, "beacon") where rest[2] == "retry" || rest[2] == "abandon":
            // A sealed round waiting for its drand round: ask again now, or give R up on the record (issue #40).
            guard method == "POST" else { return responder.respond(APIError.methodNotAllowed(allow: ["POST"])) }
            command(rest[2] == "retry" ? "beaconRetry" : "beaconAbandon", request, room: room, responder: responder, service: service)
        default:
            responder.respond(APIError.response("not_found"))
        }
    }

    /// The bearer token of `Authorization`, or nil.
    static func bearer(_ headers: HTTPHeaders) -> String? {
        guard let value = headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingSpaces
        return token.isEmpty ? nil : token
    }

    /// Whether the bearer key passes the shared rate limit and `check`; otherwise the request is
    /// answered here with the refusal, which names the key that was missing or wrong (`bad_key`
    /// is a host key, `bad_admin_key` the admin key). When the limiter holds the attempt for
    /// Redis's answer to an earlier wrong key of this address (cluster mode, milliseconds), false
    /// now, and once decided: the refusal is answered, or the request is routed anew (its key
    /// is right; the check, repeated, passes at once).
    static func admits(_ request: HTTPRequest, responder: Responder, service: DrawService, admin: Bool = false,
                       check: @escaping @Sendable (String) -> Bool) -> Bool {
        guard let key = bearer(request.head.headers) else {
            var response = APIError.response("unauthorized", message: admin ? DrawErrorText.needsAdminKey : nil)
            response.headers.add(name: "WWW-Authenticate", value: "Bearer")
            responder.respond(response)
            return false
        }
        let address = responder.remoteAddress
        let decided: @Sendable (AuthRateLimiter.Verdict) -> Void = { verdict in
            switch verdict {
            case .accepted: responder.loop.execute { route(request, responder: responder, service: service) }
            case .refused, .rateLimited: responder.respond(refusal(verdict, admin: admin, address: address, service: service))
            }
        }
        guard let verdict = service.limiter.attempt(address, check: { check(key) }, decided: decided) else { return false }
        guard verdict == .accepted else {
            responder.respond(refusal(verdict, admin: admin, address: address, service: service))
            return false
        }
        // A named operator's key reaches only what its role does (issue #41).
        if !admin, let refusal = OperatorGate.refusal(request, key: key, service: service) {
            responder.respond(refusal)
            return false
        }
        return true
    }

    private static func refusal(_ verdict: AuthRateLimiter.Verdict, admin: Bool, address: String, service: DrawService) -> HTTPResponse {
        guard verdict == .refused else {
            var response = APIError.response("rate_limited")
            response.headers.add(name: "Retry-After", value: String(service.limiter.retryAfterSeconds(address)))
            return response
        }
        service.metrics.authFailures.increment()
        return APIError.response(admin ? "bad_admin_key" : "bad_key")
    }

    /// The body as a JSON object; an empty body is `{}`.
    static func body(_ request: HTTPRequest) -> JSONValue? {
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) { return .object([:]) }
        guard let json = try? JSONValue.parse(request.body), json.objectValue != nil else { return nil }
        return json
    }

    private static func command(_ name: String, _ request: HTTPRequest, room: any DrawChannel, responder: Responder,
                                service: DrawService) {
        guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
        guard let json = body(request) else { return responder.respond(APIError.response("bad_json")) }
        let command: HostCommand
        let seq: Int64?
        let client: String?
        do {
            if name == "configure" {
                command = .configure(try DrawMessageParser.drawConfig(json))
            } else {
                command = try DrawMessageParser.command(name, json)
            }
            seq = try sequence(json["seq"])
            guard json["client"] == nil || json["client"]?.stringValue != nil else { throw MessageError.badField("client") }
            client = json["client"]?.stringValue
        } catch let error as MessageError {
            return responder.respond(APIError.response(error.code))
        } catch {
            return responder.respond(APIError.response("bad_message"))
        }
        room.perform(command, seq: seq, client: client, awaitReveal: name == "stop", as: OperatorGate.operatorOf(request, room: room)) { outcome in
            switch outcome {
            case .success(let reply):
                responder.respond(APIError.ack(reply.ack, adding: reply.result.map { ["result": $0] } ?? [:]))
            case .failure(let failure):
                responder.respond(APIError.response(failure.code))
            }
        }
    }

    private static func sequence(_ value: JSONValue?) throws(MessageError) -> Int64? {
        guard let value, !value.isNull else { return nil }
        guard let seq = value.intValue, seq >= 0 else { throw .badField("seq") }
        return seq
    }

    private static func create(_ request: HTTPRequest, responder: Responder, service: DrawService) {
        guard DrawAPI.admits(request, responder: responder, service: service, admin: true, check: service.adminKeyHash.matches) else { return }
        guard let json = body(request) else { return responder.respond(APIError.response("bad_json")) }
        var config = DrawConfig.standard
        if let value = json["config"], !value.isNull {
            do { config = try DrawMessageParser.drawConfig(value) } catch { return responder.respond(APIError.response(error.code)) }
        }
        // `--private-draws`: a new draw is private unless its settings say (issue #42).
        if !config.privateGiven { config.isPrivate = service.settings.privateDraws }
        do { _ = try Draw(config: config) } catch { return responder.respond(APIError.response(error.code)) }
        service.createDraw(config: config) { result in
            switch result {
            case .success(let created):
                var members: [String: JSONValue] = ["code": .string(created.code), "hostKey": .string(created.key)]
                for (name, link) in service.links(code: created.code, key: created.key, base: responder.client.baseURL) { members[name] = .string(link) }
                responder.respond(APIError.json(.object(members), status: .created))
            case .failure(let error):
                responder.respond(APIError.response(DrawPersistence.errorCode(error)))
            }
        }
    }

    /// The winners as CSV or `.xlsx` (`format`); a check-in pool's winners get their names (the host's
    /// download, or anyone's where the host shows names on the screen), read from the book.
    private static func exportCSV(_ room: any DrawChannel, host: Bool, language: String, format: String, responder: Responder) {
        let code = room.code
        let respond: @Sendable ([String: String]) -> Void = { names in
            // The prizes handed over (issue 45), a single box's: their time and operator as two columns.
            HandoverAPI.handovers(of: room) { handovers in
                room.export { result in
                    switch result {
                    case .success(let records):
                        ExportTable.respondOffLoop(format: format, fileName: "tombola-\(code)", sheetName: "Winners \(code)", responder: responder) {
                            // The host's download only: who handed a prize over is staff's business, not the public's.
                            DrawExportCSV.table(records: records, names: names, language: language, handovers: host ? handovers : [])
                        }
                    case .failure(let error):
                        responder.respond(APIError.response(DrawPersistence.errorCode(error)))
                    }
                }
            }
        }
        // A private draw (issue #42): the host's download names a list's winners; anyone else's
        // shows a check-in pool's names masked, as the screens do.
        room.storedSettings { config in
            let isPrivate = config?.isPrivate == true
            if host, isPrivate, let config, config.poolHasNames {
                return respond(Dictionary(PrivateRosterAPI.rows(config, code: code, base: "").map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a }))
            }
            guard let checkin = room as? any CheckinChannel else { return respond([:]) }
            checkin.checkinRead(.export) { outcome in
                guard case .success(let book) = outcome, host || book["settings"]?["publicNames"]?.boolValue == true else { return respond([:]) }
                var names: [String: String] = [:]
                for entry in book["entrants"]?.arrayValue ?? [] {
                    if let id = entry["id"]?.stringValue, let name = entry["name"]?.stringValue { names[id] = host || !isPrivate ? name : NameMasking.mask(name) }
                }
                respond(names)
            }
        }
    }

    /// `extra` with the export's `signatures` member (issue #47): the server's key, its rotations
    /// and each stored record's signature.
    private static func signed(_ records: [DrawRecord], _ extra: [String: JSONValue] = [:], signer: RecordSigner?) -> [String: JSONValue] {
        var members = extra
        if let signer { members["signatures"] = signer.exportMember(records: records) }
        if let stamps = RecordTimeStamps.exportMember(records: records) { members["timestamps"] = stamps }
        return members
    }

    /// The JSON export (the CSV has its own answer, `exportCSV`).
    private static func export(_ room: any DrawChannel, withEntrants: Bool = false, from: Int = 0, signer: RecordSigner?,
                               responder: Responder) {
        let code = room.code
        exportText(room, withEntrants: withEntrants, from: from, signer: signer) { outcome in
            switch outcome {
            case .success(let text):
                var response = HTTPResponse.json(.ok, Array(text.utf8))
                response.headers.add(name: "Content-Disposition", value: "attachment; filename=\"tombola-\(code).json\"")
                response.headers.add(name: "Cache-Control", value: "no-store")
                responder.respond(response)
            case .failure(let refusal):
                responder.respond(refusal.response)
            }
        }
    }

    /// The JSON export's text: with `withEntrants` the host's (check-in entrants, a private list's
    /// roster), signed by `signer`; or the refusal to answer instead.
    static func exportText(_ room: any DrawChannel, withEntrants: Bool = false, from: Int = 0, signer: RecordSigner?,
                           completion: @escaping @Sendable (Result<String, HTTPResponseFailure>) -> Void) {
        let code = room.code
        let piece: @Sendable ([DrawRecord]) -> [DrawRecord] = { records in from == 0 ? records : records.filter { $0.index >= from } }
        guard !withEntrants else {
            guard let room = room as? any CheckinChannel else { return completion(.failure(HTTPResponseFailure(APIError.response("not_found")))) }
            room.checkinRead(.export) { outcome in
                let checkin: JSONValue
                switch outcome {
                case .success(let value): checkin = value
                case .failure(let error): return completion(.failure(HTTPResponseFailure(CheckinAPI.failure(error))))
                }
                // A private list's roster (docs/FAIRNESS.md §22): `tombola verify --names` opens each public id.
                room.storedSettings { config in room.export { result in
                    switch result {
                    case .success(let records):
                        var extra: [String: JSONValue] = ["checkin": checkin]
                        if let config, let roster = PrivateRosterAPI.exportMember(config, code: code) { extra["private"] = roster }
                        completion(.success(DrawExport.json(code: code, records: piece(records), extra: signed(piece(records), extra, signer: signer))))
                    case .failure(let error):
                        completion(.failure(HTTPResponseFailure(APIError.response(DrawPersistence.errorCode(error)))))
                    }
                } }
            }
            return
        }
        room.export { result in
            switch result {
            case .success(let records):
                completion(.success(DrawExport.json(code: code, records: piece(records), extra: signed(piece(records), signer: signer))))
            case .failure(let error):
                completion(.failure(HTTPResponseFailure(APIError.response(DrawPersistence.errorCode(error)))))
            }
        }
    }
}

/// An HTTP answer that is a refusal, carried as a `Result`'s failure.
struct HTTPResponseFailure: Error, Sendable {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        var s = self
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
