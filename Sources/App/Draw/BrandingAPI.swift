import HTTPCore
import JSON
import Server

/// The screen's branding over REST (docs/openapi.yaml): `GET/PUT /api/draws/<code>/branding`
/// (title, accent colour) and `GET/PUT/DELETE /api/draws/<code>/logo` (the image itself as the
/// body). Reading is public (the screen shows it); changing needs the host key. Every page of
/// the draw hears a change as one `branding` message.
enum BrandingAPI {
    static func branding(_ request: HTTPRequest, method: String, room: DrawRoom, responder: Responder, service: DrawService) {
        let current = service.branding.branding(of: room.code)
        switch method {
        case "GET":
            responder.respond(APIError.json(current.json(code: room.code)))
        case "PUT":
            if let refusal = DrawAPI.refusal(request, responder: responder, service: service, check: room.isHostKey) {
                return responder.respond(refusal)
            }
            guard let json = DrawAPI.body(request) else { return responder.respond(APIError.response("bad_json")) }
            var next = current
            do throws(BrandingError) {
                if let value = json["title"] {
                    guard value.isNull || value.stringValue != nil else { throw BrandingError("bad_title") }
                    next.title = try BrandingRules.title(value.stringValue ?? "")
                }
                if let value = json["accent"] {
                    guard value.isNull || value.stringValue != nil else { throw BrandingError("bad_accent") }
                    next.accent = try BrandingRules.accent(value.stringValue ?? "")
                }
            } catch {
                return responder.respond(APIError.response(error.code))
            }
            save(next, room: room, responder: responder, service: service)
        default:
            responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD", "PUT"]))
        }
    }

    static func logo(_ request: HTTPRequest, method: String, room: DrawRoom, responder: Responder, service: DrawService) {
        let current = service.branding.branding(of: room.code)
        switch method {
        case "GET":
            guard let logo = current.logo else { return responder.respond(APIError.response("no_logo")) }
            // The type comes from the stored image's own bytes; nosniff (on every response) keeps
            // browsers from guessing another one.
            var response = HTTPResponse(status: .ok, headers: ["Content-Type": current.logoType], body: logo)
            response.headers.add(name: "Cache-Control", value: "public, max-age=31536000, immutable")
            response.headers.add(name: "Content-Disposition", value: "inline")
            responder.respond(response)
        case "PUT", "DELETE":
            if let refusal = DrawAPI.refusal(request, responder: responder, service: service, check: room.isHostKey) {
                return responder.respond(refusal)
            }
            var next = current
            if method == "DELETE" {
                next.logo = nil
                next.logoType = ""
            } else {
                guard request.body.count <= Branding.maxLogoBytes else { return responder.respond(APIError.response("logo_too_large")) }
                guard let type = BrandingRules.imageType(request.body) else { return responder.respond(APIError.response("bad_logo")) }
                next.logo = request.body
                next.logoType = type
            }
            save(next, room: room, responder: responder, service: service)
        default:
            responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD", "PUT", "DELETE"]))
        }
    }

    private static func save(_ branding: Branding, room: DrawRoom, responder: Responder, service: DrawService) {
        let code = room.code
        service.branding.save(branding, for: code) { result in
            switch result {
            case .success:
                let json = branding.json(code: code)
                var message = json.objectValue ?? [:]
                message["type"] = .string("branding")
                let text = JSONValue.object(message).canonicalString
                room.loop.execute { room.group.broadcast(text: text, stream: .reliable) }
                responder.respond(APIError.json(json))
            case .failure(let error):
                responder.respond(APIError.response(DrawPersistence.errorCode(error)))
            }
        }
    }
}
