import DrawRoomCore
import Server
import HTTPCore
import JSON

/// The prize table (issue 45, docs/PROTOCOL.md "Prize hand-over"): `POST …/handover` looks a
/// voucher code up (`{"code"}`) or hands its prize over (`{"code","confirm":true}`);
/// `GET …/handovers` lists every voucher with its state. The owner's, a host's and a check-in
/// operator's keys only (`OperatorGate`). A single box: cluster mode keeps no hand-overs and says so.
enum HandoverAPI {
    static func route(_ name: String, method: String, request: HTTPRequest, room: any DrawChannel, responder: Responder,
                      service: DrawService) {
        guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
        if name == "handovers" {
            guard method == "GET" else { return responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD"])) }
            // Cluster mode keeps no vouchers: the list says so (`enabled` false), as a draw without
            // vouchers does, so a host page asks without an error (the hand-over itself is 501).
            guard let room = room as? DrawRoom else { return responder.respond(APIError.json(DrawRoom.noHandovers)) }
            return room.handoverList { responder.respond(APIError.json($0)) }
        }
        guard let room = room as? DrawRoom else { return responder.respond(APIError.response("handover_unsupported")) }
        guard method == "POST" else { return responder.respond(APIError.methodNotAllowed(allow: ["POST"])) }
        guard let json = DrawAPI.body(request) else { return responder.respond(APIError.response("bad_json")) }
        let command: HostCommand
        do throws(MessageError) {
            command = try DrawMessageParser.command("handover", json)
        } catch {
            return responder.respond(APIError.response(error.code))
        }
        room.perform(command, seq: nil, client: nil, awaitReveal: false, as: OperatorGate.operatorOf(request, room: room)) { outcome in
            switch outcome {
            case .success(let reply):
                responder.respond(APIError.ack(reply.ack))
            case .failure(let failure):
                // A voided or handed-over voucher's answer says whose it is (the staff show it).
                var response = APIError.response(failure.code)
                if let voucher = failure.detail {
                    let body: JSONValue = .object(["error": .object(["code": .string(failure.code),
                                                                     "message": .string(DrawErrorText.message(for: failure.code)),
                                                                     "voucher": voucher])])
                    response = HTTPResponse.json(APIError.status(for: failure.code), body.canonicalBytes)
                    response.headers.add(name: "Cache-Control", value: "no-store")
                }
                responder.respond(response)
            }
        }
    }
}

extension HandoverAPI {
    /// The prizes handed over in `room` (none in cluster mode, which keeps none).
    static func handovers(of room: any DrawChannel, _ completion: @escaping @Sendable ([Handover]) -> Void) {
        guard let room = room as? DrawRoom else { return completion([]) }
        room.whenReady({ [room] in completion(room.state.checkin.book.handovers) }, otherwise: { completion([]) })
    }
}

extension DrawRoom {
    /// `GET …/handovers`: the vouchers' list (on the loop, once the draw is read).
    func handoverList(_ completion: @escaping @Sendable (JSONValue) -> Void) {
        whenReady({ [self] in completion(state.handoverListJSON()) },
                  otherwise: { completion(Self.noHandovers) })
    }

    /// The list of a draw without vouchers.
    static let noHandovers: JSONValue = .object(["enabled": .bool(false), "handedOver": .int(0), "total": .int(0), "items": .array([])])
}
