import RedisStore
import Crypto
import HTTPCore
import JSON
import Server

/// The screen's branding over REST (docs/openapi.yaml): `GET/PUT /api/draws/<code>/branding`
/// (title, accent colour) and `GET/PUT/DELETE /api/draws/<code>/logo` (the image itself as the
/// body). Reading is public (the screen shows it); changing needs the host key. Every page of
/// the draw hears a change as one `branding` message. Single-box keeps it in SQLite
/// (`BrandingStore`); cluster mode in Redis (`ClusterBranding`), with the same checks and errors.
enum BrandingAPI {
    static func branding(_ request: HTTPRequest, method: String, room: any DrawChannel, responder: Responder, service: DrawService) {
        switch method {
        case "GET":
            if let cluster = service.cluster { return cluster.branding.respondBranding(code: room.code, responder: responder) }
            responder.respond(APIError.json(service.branding.branding(of: room.code).json(code: room.code)))
        case "PUT":
            guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
            guard let json = DrawAPI.body(request) else { return responder.respond(APIError.response("bad_json")) }
            var change = BrandingChange()
            do throws(BrandingError) {
                if let value = json["title"] {
                    guard value.isNull || value.stringValue != nil else { throw BrandingError("bad_title") }
                    change.title = try BrandingRules.title(value.stringValue ?? "")
                }
                if let value = json["accent"] {
                    guard value.isNull || value.stringValue != nil else { throw BrandingError("bad_accent") }
                    change.accent = try BrandingRules.accent(value.stringValue ?? "")
                }
            } catch {
                return responder.respond(APIError.response(error.code))
            }
            save(change, room: room, responder: responder, service: service)
        default:
            responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD", "PUT"]))
        }
    }

    static func logo(_ request: HTTPRequest, method: String, room: any DrawChannel, responder: Responder, service: DrawService) {
        switch method {
        case "GET":
            if let cluster = service.cluster { return cluster.branding.respondLogo(code: room.code, responder: responder) }
            let current = service.branding.branding(of: room.code)
            guard let logo = current.logo else { return responder.respond(APIError.response("no_logo")) }
            responder.respond(logoResponse(type: current.logoType, bytes: logo))
        case "PUT", "DELETE":
            guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
            var change = BrandingChange()
            if method == "DELETE" {
                change.removeLogo = true
            } else {
                guard request.body.count <= Branding.maxLogoBytes else { return responder.respond(APIError.response("logo_too_large")) }
                guard let type = BrandingRules.imageType(request.body) else { return responder.respond(APIError.response("bad_logo")) }
                change.logo = (type, request.body, String(SHA256.hexDigest(request.body).prefix(16)))
            }
            save(change, room: room, responder: responder, service: service)
        default:
            responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD", "PUT", "DELETE"]))
        }
    }

    /// The logo: its URL names its version (`?v=`), so it may be cached for good.
    static func logoResponse(type: String, bytes: [UInt8]) -> HTTPResponse {
        // The type comes from the stored image's own bytes; nosniff (on every response) keeps
        // browsers from guessing another one.
        var response = HTTPResponse(status: .ok, headers: ["Content-Type": type], body: bytes)
        response.headers.add(name: "Cache-Control", value: "public, max-age=31536000, immutable")
        response.headers.add(name: "Content-Disposition", value: "inline")
        return response
    }

    private static func save(_ change: BrandingChange, room: any DrawChannel, responder: Responder, service: DrawService) {
        let code = room.code
        // Cluster mode: stored and announced to every instance's pages in one script.
        if let cluster = service.cluster { return cluster.branding.apply(change, code: code, responder: responder) }
        var next = service.branding.branding(of: code)
        if let title = change.title { next.title = title }
        if let accent = change.accent { next.accent = accent }
        if let logo = change.logo {
            next.logo = logo.bytes
            next.logoType = logo.type
        } else if change.removeLogo {
            next.logo = nil
            next.logoType = ""
        }
        let branding = next
        service.branding.save(branding, for: code) { result in
            announce(result.map { branding }, room: room, responder: responder)
        }
    }

    /// After a stored change: every page of the draw gets the `branding` message, the request the
    /// branding now; or the storage's error.
    static func announce(_ result: Result<Branding, any Error>, room: any DrawChannel, responder: Responder) {
        switch result {
        case .success(let branding):
            let json = branding.json(code: room.code)
            let text = Branding.message(json)
            room.loop.execute { room.group.broadcast(text: text, stream: .reliable) }
            responder.respond(APIError.json(json))
        case .failure(let error):
            responder.respond(APIError.response(DrawPersistence.errorCode(error)))
        }
    }
}
