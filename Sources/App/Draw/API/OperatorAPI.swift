import DrawRoomCore
import HTTPCore
import JSON
import Server
import Storage

/// Named operators over REST (issue #41; docs/PROTOCOL.md, "Named operators"):
/// `GET /api/draws/<code>/operators` lists them, `POST` adds one (its key and links are in the
/// answer, once: only the key's SHA-256 is stored), `DELETE …/operators/<id>` revokes one (its
/// key stops working at once, on every page). The owner's key and host-role operators' only.
/// Single box; cluster mode answers `not_supported`.
enum OperatorAPI {
    static let nameLength = 1...60

    /// `rest`: `[code, "operators"]` or `[code, "operators", id]`.
    static func serve(_ rest: [String], request: HTTPRequest, method: String, room: any DrawChannel,
                      responder: Responder, service: DrawService) {
        guard let room = room as? DrawRoom else { return responder.respond(APIError.response("not_supported")) }
        guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
        let by = DrawAPI.bearer(request.head.headers).flatMap { room.hostKeyHash.matches($0) ? nil : room.operators.lookup($0) }
        switch (rest.count, method) {
        case (2, "GET"):
            list(room, service: service, responder: responder)
        case (2, "POST"):
            add(request, room: room, by: by, service: service, responder: responder)
        case (3, "DELETE"):
            revoke(rest[2], room: room, by: by, service: service, responder: responder)
        case (2, _):
            responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD", "POST"]))
        default:
            responder.respond(APIError.methodNotAllowed(allow: ["DELETE"]))
        }
    }

    private static func list(_ room: DrawRoom, service: DrawService, responder: Responder) {
        let code = room.code
        service.storage.async({ database in
            try database.loadOperators().filter { $0.drawCode == code }
        }, completion: { result in
            switch result {
            case .success(let rows):
                responder.respond(APIError.json(.object(["operators": .array(rows.map(json))])))
            case .failure(let error):
                responder.respond(APIError.response(DrawPersistence.errorCode(error)))
            }
        })
    }

    static func json(_ row: OperatorRow) -> JSONValue {
        .object([
            "id": .string(row.id), "name": .string(row.name), "role": .string(row.role),
            "created": .int(Int64((row.createdAt * 1000).rounded())),
            "revoked": row.revokedAt.map { .int(Int64(($0 * 1000).rounded())) } ?? .null,
        ])
    }

    private static func add(_ request: HTTPRequest, room: DrawRoom, by: OperatorRef?, service: DrawService, responder: Responder) {
        guard let body = DrawAPI.body(request) else { return responder.respond(APIError.response("bad_json")) }
        let name = CheckinForm.clean(body["name"]?.stringValue ?? "")
        guard nameLength.contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
              let role = body["role"]?.stringValue.flatMap(OperatorRole.init(rawValue:)) else {
            return responder.respond(APIError.response("bad_operator"))
        }
        let code = room.code
        let key = DrawKeys.newSecret()
        let ref = OperatorRef(id: "op-" + DrawKeys.newCode(), name: name, role: role)
        let row = OperatorRow(drawCode: code, id: ref.id, name: name, role: role.rawValue, keyHash: DrawKeys.hash(key),
                              createdAt: Double(DrawPersistence.now) / 1000)
        let entry = AuditEntry(actor: "host", action: "operator_add", detail: .object([
            "id": .string(ref.id), "name": .string(name), "role": .string(role.rawValue),
        ])).stampedForAPI(by: by)
        let audit = service.audit
        service.storage.async({ database in
            try database.insertOperator(row)
            try DrawPersistence.append([], code: code, audit: (audit, entry), in: database)
        }, completion: { result in
            switch result {
            case .success:
                room.operators.add(ref, hash: row.keyHash)
                var members: [String: JSONValue] = ["id": .string(ref.id), "name": .string(name), "role": .string(role.rawValue),
                                                    "key": .string(key)]
                for (name, link) in service.links(code: code, key: key, base: responder.client.baseURL) { members[name] = .string(link) }
                responder.respond(APIError.json(.object(members), status: .created))
            case .failure(let error):
                responder.respond(APIError.response(DrawPersistence.errorCode(error)))
            }
        })
    }

    private static func revoke(_ id: String, room: DrawRoom, by: OperatorRef?, service: DrawService, responder: Responder) {
        let code = room.code
        let audit = service.audit
        let entry = AuditEntry(actor: "host", action: "operator_revoke", detail: .object(["id": .string(id)])).stampedForAPI(by: by)
        service.storage.async({ database -> Bool in
            guard try database.revokeOperator(drawCode: code, id: id, at: Double(DrawPersistence.now) / 1000) else { return false }
            try DrawPersistence.append([], code: code, audit: (audit, entry), in: database)
            return true
        }, completion: { result in
            switch result {
            case .success(true):
                // The key stops working now: new checks refuse it, and its pages become viewers.
                _ = room.operators.revoke(id)
                room.operatorRevoked(id)
                responder.respond(APIError.json(.object(["ok": .bool(true), "id": .string(id), "revoked": .bool(true)])))
            case .success(false):
                responder.respond(APIError.response("unknown_operator", status: .notFound))
            case .failure(let error):
                responder.respond(APIError.response(DrawPersistence.errorCode(error)))
            }
        })
    }
}

extension AuditEntry {
    /// The entry naming the operator who called the API (the owner when nil), as the room names
    /// a command's (`detail.operator`, `detail.operatorId`).
    func stampedForAPI(by ref: OperatorRef?) -> AuditEntry {
        let ref = ref ?? .owner
        guard case .object(var members) = detail else { return self }
        members["operator"] = .string(ref.name)
        members["operatorId"] = .string(ref.id)
        var entry = self
        entry.detail = .object(members)
        return entry
    }
}

/// The REST side of operators' roles (issue #41): after a key is admitted, a presenter's or a
/// check-in operator's may reach only what its role does (`role_forbidden` otherwise). The room
/// checks every command again (WebSocket and REST alike).
enum OperatorGate {
    /// nil: go on; else the refusal for a key already admitted on `request`'s path.
    static func refusal(_ request: HTTPRequest, key: String, service: DrawService) -> HTTPResponse? {
        let segments = request.head.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard segments.count >= 3, segments[0] == "api", segments[1] == "draws", let room = service.existingRoom(segments[2]),
              !room.hostKeyHash.matches(key), let ref = room.operators.lookup(key), ref.role != .host else { return nil }
        let rest = Array(segments.dropFirst(2))
        let method = request.head.method == "HEAD" ? "GET" : request.head.method
        return allows(ref.role, rest, method: method) ? nil : APIError.response("role_forbidden")
    }

    /// What each restricted role may call: the board (with names, as the screen shows them) for
    /// all; a presenter Start and Stop; check-in its entries and entrants; an observer every read.
    static func allows(_ role: OperatorRole, _ rest: [String], method: String) -> Bool {
        let name = rest.count >= 2 ? rest[1] : ""
        if name == "rounds", method == "GET" { return true }
        switch role {
        case .host: return true
        case .presenter: return method == "POST" && rest.count == 2 && (name == "start" || name == "stop")
        // And the prize table (issue 45): look vouchers up, hand prizes over, the list.
        case .checkin: return ["entries", "entrants", "entrants.csv", "entrants.xlsx", "handover", "handovers"].contains(name)
        // An observer reads everything the host reads (the audit log, the entrants, exports) and changes nothing;
        // not the webhooks (a chat's webhook URL is a credential of its own).
        // Its one write: its own sign-offs (issue #41).
        // Nor the vouchers' list (each code is a bearer secret: the winner's, the host's and the staff's).
        case .observer: return (method == "GET" && name != "operators" && name != "webhooks" && name != "handovers")
            || (method == "POST" && rest.count == 2 && name == "signoffs")
        }
    }
}

extension OperatorGate {
    /// The named operator whose key `request` carries (nil: none, or the owner's key).
    static func operatorOf(_ request: HTTPRequest, room: any DrawChannel) -> OperatorRef? {
        guard let room = room as? DrawRoom, let key = DrawAPI.bearer(request.head.headers), !room.hostKeyHash.matches(key) else { return nil }
        return room.operators.lookup(key)
    }
}

extension DrawChannel {
    /// `perform`, naming the operator who gave the command over REST (single box; `ref` nil: the owner).
    func perform(_ command: HostCommand, seq: Int64?, client: String?, awaitReveal: Bool, as ref: OperatorRef?,
                 completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        if let room = self as? DrawRoom, ref != nil {
            return room.perform(command, seq: seq, client: client, awaitReveal: awaitReveal, by: ref, completion: completion)
        }
        perform(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion)
    }
}
