import HTTPCore
import Server

/// A prize tier's picture and music over REST (docs/openapi.yaml):
/// `GET/PUT/DELETE /api/draws/<code>/prizes/<tier>/picture` and `…/music`, the file itself as
/// the body. Reading is public (the screen shows and plays them); changing needs the host key.
/// Every page of the draw hears a change as the one `branding` message, whose `media` map names
/// each slot's URL. Single-box keeps them in SQLite (`BrandingStore`); cluster mode in Redis
/// (`ClusterBranding`), with the same checks and errors.
enum PrizeMediaAPI {
    /// `rest` is `[code, "prizes", tier, kind]`.
    static func serve(_ rest: [String], request: HTTPRequest, method: String, room: any DrawChannel, responder: Responder,
                      service: DrawService) {
        guard let slot = PrizeMediaSlot(tier: rest[2], kind: rest[3]) else { return responder.respond(APIError.response("not_found")) }
        switch method {
        case "GET":
            if let cluster = service.cluster { return cluster.branding.respondMedia(slot, code: room.code, responder: responder) }
            service.branding.media(slot, of: room.code) { result in
                switch result {
                case .success(let media?): responder.respond(BrandingAPI.logoResponse(type: media.type, bytes: media.bytes))
                case .success(nil): responder.respond(APIError.response("no_media"))
                case .failure(let error): responder.respond(APIError.response(DrawPersistence.errorCode(error)))
                }
            }
        case "PUT", "DELETE":
            guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
            var media: (type: String, bytes: [UInt8], version: String)?
            if method == "PUT" {
                guard request.body.count <= slot.maxBytes else {
                    return responder.respond(APIError.response("media_too_large"))
                }
                guard let type = PrizeMediaRules.type(of: slot.kind, request.body) else {
                    return responder.respond(APIError.response("bad_media"))
                }
                media = (type, request.body, PrizeMediaRules.version(request.body))
            }
            if let cluster = service.cluster { return cluster.branding.applyMedia(slot, media, code: room.code, responder: responder) }
            service.branding.saveMedia(slot, media, for: room.code) { result in
                BrandingAPI.announce(result, room: room, responder: responder)
            }
        default:
            responder.respond(APIError.methodNotAllowed(allow: ["GET", "HEAD", "PUT", "DELETE"]))
        }
    }

    /// A music upload may be larger than the server's usual body limit: allowed for the host
    /// (checked key, shared rate limit) on `PUT …/prizes/<tier>/music` only; nil otherwise.
    static func bodyLimit(_ head: HTTPRequestHead, client: String, service: DrawService) -> Int? {
        let segments = head.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard head.method == "PUT", segments.count == 7, segments[1] == "api", segments[2] == "draws", segments[4] == "prizes",
              let slot = PrizeMediaSlot(tier: segments[5], kind: segments[6]), slot.kind == .music,
              PoolUploadAPI.isHost(head, code: segments[3], client: client, service: service) else { return nil }
        return slot.maxBytes
    }
}
