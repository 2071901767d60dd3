import RedisStore
import HTTPCore
import Crypto
import JSON
import Posix
import Server

/// Branding in cluster mode (docs/CLUSTER.md, *Branding*): every draw's title, accent colour
/// and logo live in Redis (`{d:CODE}:branding`), so every instance answers `GET …/branding`
/// and `GET …/logo` alike; a change on any instance is stored and announced in one script on
/// `tombola:branding`, and every instance forwards it to its own pages of the draw as the one
/// `branding` message single-box sends. Pages read the current branding with `GET …/branding`
/// when they load, on whichever instance: nothing is held per instance but the logo's bytes
/// (by version, so a changed logo is read again).
///
/// `@unchecked Sendable`: immutable properties plus state used only on `loop`.
final class ClusterBranding: @unchecked Sendable {
    let loop: EventLoop
    let store: ClusterBrandingStore
    /// Loop only: each draw's logo as last read, with its version.
    private var logos: [String: (type: String, bytes: [UInt8], version: String)] = [:]
    /// Loop only: prize media as last read (`code/slot`), with their versions.
    private var media: [String: (type: String, bytes: [UInt8], version: String)] = [:]

    init(client: RedisClient) {
        loop = client.loop
        store = ClusterBrandingStore(client: client)
    }

    static func json(_ record: BrandingRecord, code: String) -> JSONValue {
        Branding.json(code: code, title: record.title, accent: record.accent,
                      logoVersion: record.logoVersion.isEmpty ? nil : record.logoVersion, media: record.media)
    }

    /// `GET …/branding`: read from Redis (a page asks once when it loads), or 503 `cluster_unavailable`.
    func respondBranding(code: String, responder: Responder) {
        loop.execute { [self] in
            store.read(draw: code) { result in
                switch result {
                case .success(let record): responder.respond(APIError.json(Self.json(record, code: code)))
                case .failure(let error): responder.respond(Self.unavailable(error, code: code))
                }
            }
        }
    }

    /// `GET …/logo`: the current logo; its bytes are read once per version.
    func respondLogo(code: String, responder: Responder) {
        loop.execute { [self] in
            store.read(draw: code) { [self] result in
                switch result {
                case .failure(let error):
                    responder.respond(Self.unavailable(error, code: code))
                case .success(let record) where record.logoVersion.isEmpty:
                    responder.respond(APIError.response("no_logo"))
                case .success(let record):
                    if let logo = logos[code], logo.version == record.logoVersion {
                        return responder.respond(BrandingAPI.logoResponse(type: logo.type, bytes: logo.bytes))
                    }
                    store.logo(draw: code) { [self] result in
                        switch result {
                        case .failure(let error):
                            responder.respond(Self.unavailable(error, code: code))
                        case .success(nil):
                            responder.respond(APIError.response("no_logo"))
                        case .success(let logo?):
                            logos[code] = logo
                            responder.respond(BrandingAPI.logoResponse(type: logo.type, bytes: logo.bytes))
                        }
                    }
                }
            }
        }
    }

    /// `GET …/prizes/<tier>/<kind>`: the slot's current bytes, read from Redis once per version.
    func respondMedia(_ slot: PrizeMediaSlot, code: String, responder: Responder) {
        loop.execute { [self] in
            store.read(draw: code) { [self] result in
                switch result {
                case .failure(let error):
                    responder.respond(Self.unavailable(error, code: code))
                case .success(let record):
                    guard let version = record.media[slot.name] else { return responder.respond(APIError.response("no_media")) }
                    let key = "\(code)/\(slot.name)"
                    if let kept = media[key], kept.version == version {
                        return responder.respond(BrandingAPI.logoResponse(type: kept.type, bytes: kept.bytes))
                    }
                    store.media(draw: code, slot: slot.name) { [self] result in
                        switch result {
                        case .failure(let error): responder.respond(Self.unavailable(error, code: code))
                        case .success(nil): responder.respond(APIError.response("no_media"))
                        case .success(let found?):
                            media[key] = found
                            responder.respond(BrandingAPI.logoResponse(type: found.type, bytes: found.bytes))
                        }
                    }
                }
            }
        }
    }

    /// A checked media change (`PUT/DELETE …/prizes/<tier>/<kind>`): stored and announced like any branding change.
    func applyMedia(_ slot: PrizeMediaSlot, _ value: (type: String, bytes: [UInt8], version: String)?, code: String, responder: Responder) {
        var change = BrandingChange()
        change.media = (slot.name, value)
        apply(change, code: code, responder: responder)
    }

    /// A checked change (`PUT …/branding`, `PUT/DELETE …/logo`): stored and announced in one
    /// script; answered with the new branding, or 503 `cluster_unavailable` with nothing written.
    func apply(_ change: BrandingChange, code: String, responder: Responder) {
        loop.execute { [self] in
            // Redis down: refused at once (as host commands are), nothing written.
            guard store.client.state == .ready else { return responder.respond(APIError.response("cluster_unavailable")) }
            store.apply(change, draw: code) { result in
                switch result {
                case .success(let record): responder.respond(APIError.json(Self.json(record, code: code)))
                case .failure(let error): responder.respond(Self.unavailable(error, code: code))
                }
            }
        }
    }

    /// A change announced on `tombola:branding` (by any instance, this one included): this
    /// instance's pages of the draw get the `branding` message. Loop only.
    func announced(_ payload: [UInt8], runtime: ClusterRuntime) {
        guard let (code, record) = BrandingRecord.parseAnnouncement(payload), let node = runtime.node(code) else { return }
        node.group.broadcast(text: Branding.message(Self.json(record, code: code)), stream: .reliable)
    }

    /// After the subscriber reconnected (announcements may have been missed): the pages here
    /// get the current branding of their draw again. Loop only.
    func resend(to nodes: [ClusterDrawNode]) {
        for node in nodes where node.group.count > 0 {
            store.read(draw: node.code) { result in
                guard case .success(let record) = result else { return }
                node.group.broadcast(text: Branding.message(Self.json(record, code: node.code)), stream: .reliable)
            }
        }
    }

    private static func unavailable(_ error: ClusterError, code: String) -> HTTPResponse {
        if case .unexpectedReply = error { DrawLog.error("cluster: branding of draw \(code): \(error)", code: code) }
        return APIError.response("cluster_unavailable")
    }
}
