import DrawEngine
import Posix
import Server

/// `GET /api/draws/<code>/auditpack.zip?event=1` (issue #41): the auditor's pack of an event, the
/// draws linked through `excludeWinnersOf` from the draw asked for (`EventWalk`), each draw's own
/// pack in `draws/<code>/` and `event.html` over them all. The key of the draw asked is enough:
/// each link was made with the linked draw's host key (`checkPastDraws`), so whoever may audit the
/// later draw may audit the draws it excluded. Draws are gathered one after the other (each is an
/// export and an audit log read), the ZIP is built off the loop.
enum EventPack {
    static func respond(_ room: any DrawChannel, service: DrawService, responder: Responder) {
        let code = room.code
        var walk = EventWalk(from: code)
        _ = walk.next()
        read(room, walk: walk, gathered: [], service: service, loop: responder.loop) { outcome in
            switch outcome {
            case .success(let (walk, draws)):
                let madeAt = draws.first?.madeAt ?? 0
                AuditPack.send(responder, filename: "tombola-\(code)-event-auditpack.zip") {
                    try EventPackDocuments.zip(asked: code, walk: walk, draws: draws, madeAt: madeAt)
                }
            case .failure(let refusal): responder.respond(refusal.response)
            }
        }
    }

    typealias Gathered = (walk: EventWalk, draws: [AuditPackDocuments.Inputs])

    /// Reads `room` (the walk's current draw), then the walk's next draw, until the walk is done.
    /// A draw that cannot be read fails the whole pack (an event pack with a draw silently left
    /// out would mislead); a linked draw that is gone is `missing` in it.
    private static func read(_ room: any DrawChannel, walk: EventWalk, gathered: [AuditPackDocuments.Inputs], service: DrawService,
                             loop: EventLoop, completion: @escaping @Sendable (Result<Gathered, HTTPResponseFailure>) -> Void) {
        AuditPack.gather(room, service: service) { outcome in
            let inputs: AuditPackDocuments.Inputs
            switch outcome {
            case .success(let value): inputs = value
            case .failure(let refusal): return completion(.failure(refusal))
            }
            room.storedSettings { config in
                var next = walk
                let settings = config?.excludeWinnersOf.map(\.code) ?? []
                next.read(room.code, links: EventPackDocuments.linkedCodes(exportText: inputs.exportText, settings: settings))
                // Back on the request's loop, where the API looks draws up (`service.room`), as DrawAPI does.
                let walked = next
                loop.execute { advance(walked, gathered: gathered + [inputs], service: service, loop: loop, completion: completion) }
            }
        }
    }

    private static func advance(_ walk: EventWalk, gathered: [AuditPackDocuments.Inputs], service: DrawService, loop: EventLoop,
                                completion: @escaping @Sendable (Result<Gathered, HTTPResponseFailure>) -> Void) {
        var walk = walk
        while let next = walk.next() {
            guard let room = service.room(next) else {
                walk.read(next, links: nil)
                continue
            }
            return read(room, walk: walk, gathered: gathered, service: service, loop: loop, completion: completion)
        }
        completion(.success((walk, gathered)))
    }
}
