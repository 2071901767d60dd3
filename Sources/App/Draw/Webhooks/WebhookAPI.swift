import Crypto
import DrawRoomCore
import HTTPCore
import JSON
import Posix
import Server
import Storage
import Webhooks

/// A draw's outgoing webhooks over REST, for its host (docs/PROTOCOL.md, "Webhooks"):
/// `GET /api/draws/<code>/webhooks` lists them with their last status (never the secret),
/// `POST` adds one (`{"url","events","format","language"}`; the answer carries the signing
/// secret, the only time it is shown), `DELETE …/webhooks/<id>` removes one. A refused hook
/// changes nothing: `bad_webhook_url`, `webhook_not_https`, `webhook_private_target`,
/// `webhook_unresolved`, `bad_webhook_events`, `bad_webhook_format`, `too_many_webhooks`.
enum WebhookAPI {
    /// `rest`: `[code, "webhooks"]` or `[code, "webhooks", id]`.
    static func serve(_ rest: [String], request: HTTPRequest, method: String, room: any DrawChannel,
                      responder: Responder, service: DrawService) {
        let allowed = rest.count == 2 ? ["GET", "HEAD", "POST"] : ["DELETE"]
        guard allowed.contains(method) else { return responder.respond(APIError.methodNotAllowed(allow: allowed)) }
        guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
        guard let registry = ServerWebhooks.registry else { return responder.respond(APIError.response("not_supported")) }
        let code = room.code
        switch method {
        case "GET":
            list(code: code, registry: registry, responder: responder)
        case "POST":
            add(request, code: code, registry: registry, responder: responder)
        default:
            registry.delete(rest[2], of: code) { result in
                switch result {
                case .success(true): responder.respond(HTTPResponse(status: .noContent))
                case .success(false): responder.respond(APIError.response("unknown_webhook"))
                case .failure(let failure): responder.respond(APIError.response(failure.code))
                }
            }
        }
    }

    private static func list(code: String, registry: WebhookRegistry, responder: Responder) {
        registry.hooks(of: code) { result in
            switch result {
            case .failure(let failure):
                responder.respond(APIError.response(failure.code))
            case .success(let rows):
                registry.statuses(of: code, ids: rows.map(\.id)) { statuses in
                    let hooks: [JSONValue] = rows.map { row in
                        var object = WebhookRegistry.json(row).objectValue ?? [:]
                        object["last"] = statuses[row.id] ?? WebhookRegistry.json(WebhookStatus())
                        return .object(object)
                    }
                    responder.respond(APIError.json(.object(["code": .string(code), "webhooks": .array(hooks)])))
                }
            }
        }
    }

    /// What a POST asks for, checked; or the refusal's code.
    static func parse(_ json: JSONValue, allowPrivate: Bool) -> Result<(target: WebhookTarget, row: WebhookRow), CommandFailure> {
        guard let url = json["url"]?.stringValue, case .success(let target) = WebhookTarget.parse(url) else {
            return .failure(CommandFailure(code: "bad_webhook_url"))
        }
        if !target.https && !allowPrivate { return .failure(CommandFailure(code: "webhook_not_https")) }
        var kinds = WebhookEvent.Kind.allCases.map(\.rawValue)
        if let value = json["events"], !value.isNull {
            guard let list = value.arrayValue, !list.isEmpty, list.count <= 20 else { return .failure(CommandFailure(code: "bad_webhook_events")) }
            var chosen: [String] = []
            for item in list {
                guard let name = item.stringValue, WebhookEvent.Kind(rawValue: name) != nil else {
                    return .failure(CommandFailure(code: "bad_webhook_events"))
                }
                if !chosen.contains(name) { chosen.append(name) }
            }
            kinds = chosen
        }
        var format = WebhookFormat.generic
        if let value = json["format"], !value.isNull {
            guard let name = value.stringValue, let chosen = WebhookFormat(rawValue: name) else {
                return .failure(CommandFailure(code: "bad_webhook_format"))
            }
            format = chosen
        }
        // The chats' lines exist in English and Chinese; a page in another language gets English.
        let language = (json["language"]?.stringValue ?? "en").hasPrefix("zh") ? "zh" : "en"
        let row = WebhookRow(id: lowercaseHex(SecureRandom.bytes(count: 8)), url: url, format: format.rawValue,
                             events: kinds.joined(separator: ","), language: language,
                             secret: "whsec_" + lowercaseHex(SecureRandom.bytes(count: 24)), createdAt: Int64(WallClock.unixMilliseconds()))
        return .success((target, row))
    }

    private static func add(_ request: HTTPRequest, code: String, registry: WebhookRegistry, responder: Responder) {
        guard let json = DrawAPI.body(request) else { return responder.respond(APIError.response("bad_json")) }
        let parsed: (target: WebhookTarget, row: WebhookRow)
        switch parse(json, allowPrivate: registry.allowPrivate) {
        case .success(let value): parsed = value
        case .failure(let failure): return responder.respond(APIError.response(failure.code))
        }
        let allowPrivate = registry.allowPrivate
        // The name is resolved off the loop (a slow DNS answer must not hold the draws up); the
        // dispatcher checks the addresses again before every delivery.
        let started = DetachedThread.start {
            switch parsed.target.resolve(allowPrivate: allowPrivate) {
            case .failure(.privateAddress): return responder.respond(APIError.response("webhook_private_target"))
            case .failure: return responder.respond(APIError.response("webhook_unresolved"))
            case .success: break
            }
            registry.add(parsed.row, to: code) { result in
                switch result {
                case .success:
                    var object = WebhookRegistry.json(parsed.row).objectValue ?? [:]
                    // Shown this once: the host keeps it to check signatures.
                    object["secret"] = .string(parsed.row.secret)
                    responder.respond(APIError.json(.object(object), status: .created))
                case .failure(let failure):
                    responder.respond(APIError.response(failure.code))
                }
            }
        }
        if !started { responder.respond(APIError.response("busy")) }
    }
}
