import DrawEngine
import DrawRoomCore
import Foundation
import JSON
import HTTPCore
import Posix
import Server

/// A private draw's roster for its host (issue #42, docs/FAIRNESS.md §22): which public id is
/// whose, and each entrant's receipt. Host key only: the one place names and ids meet.
///
/// - `GET /api/draws/<code>/private`: `{"private","entrants":[{"position","id","name","salt","receipt"}],
///   "exclude":[…],"config":{…}}`, the host's own settings (the names) beside the public ids.
/// - `GET /api/draws/<code>/receipts.csv` (`.xlsx`): the same as a mail-merge table, one row per
///   entrant: name, public id, salt, and the receipt link that opens "your entry is in the locked
///   pool" on the entrant's phone (`/watch/<code>#receipt=…`: the fragment never reaches a server).
enum PrivateRosterAPI {
    struct Row: Sendable {
        var position: Int
        var id: String
        var name: String
        var salt: String
        var receipt: String
    }

    /// The roster of `config` (empty unless a private list). `base`: the server's URL for receipt links.
    static func rows(_ config: DrawConfig, code: String, base: String) -> [Row] {
        guard config.isPrivate, config.poolHasNames, let secret = config.privateSecret else { return [] }
        let names: [String] = switch config.pool {
        case .list(let names): names
        case .entries(let entrants): entrants.map(\.name)
        default: []
        }
        let salter = PrivateEntries.Salter(secret: secret)
        return names.enumerated().map { position, name in
            let salt = salter.salt(name: name)
            let id = PrivateEntries.prefix + PrivateEntries.commitment(salt: salt, name: name)
            let hex = salt.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
            return Row(position: position, id: id, name: name, salt: hex,
                       receipt: base + "/watch/" + code + "#receipt=" + component(id) + "&salt=" + hex + "&name=" + component(name))
        }
    }

    /// The host export's `private` member: `{"entrants":[{"position","id","name","salt"}]}`; nil unless a private list.
    static func exportMember(_ config: DrawConfig, code: String) -> JSONValue? {
        let rows = rows(config, code: code, base: "")
        guard !rows.isEmpty else { return nil }
        return .object(["entrants": .array(rows.map {
            .object(["position": .int(Int64($0.position)), "id": .string($0.id), "name": .string($0.name), "salt": .string($0.salt)])
        })])
    }

    static func component(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    static func serve(_ request: HTTPRequest, csvFormat: String?, room: any DrawChannel, responder: Responder, service: DrawService) {
        guard DrawAPI.admits(request, responder: responder, service: service, check: room.isHostKey) else { return }
        let code = room.code
        let base = (responder.client.baseURL ?? service.baseURL).trimmingSuffix("/")
        room.storedSettings { config in
            guard let config else { return responder.respond(APIError.response("storage_failed")) }
            if let csvFormat {
                return ExportTable.respondOffLoop(format: csvFormat, fileName: "tombola-\(code)-receipts", sheetName: "Receipts \(code)",
                                                  responder: responder) {
                    ExportTable(header: ["name", "id", "salt", "receipt"],
                                rows: rows(config, code: code, base: base).map { [.text($0.name), .text($0.id), .text($0.salt), .text($0.receipt)] },
                                timeZone: .current, fractionalSeconds: false)
                }
            }
            let started = DetachedThread.start {
                var host = config.json
                if case .object(var members) = host {
                    members["privateSecret"] = nil  // the server's alone, even for the host
                    host = .object(members)
                }
                let entrants = rows(config, code: code, base: base).map { row -> JSONValue in
                    .object(["position": .int(Int64(row.position)), "id": .string(row.id), "name": .string(row.name),
                             "salt": .string(row.salt), "receipt": .string(row.receipt)])
                }
                var response = APIError.json(.object(["private": .bool(config.isPrivate && config.poolHasNames),
                                                      "entrants": .array(entrants), "config": host]))
                response.headers.add(name: "Cache-Control", value: "no-store")
                responder.respond(response)
            }
            if !started { responder.respond(APIError.response("busy")) }
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}

extension DrawRoom {
    /// The stored settings (names, and a private draw's secret): for the host's roster only.
    func storedSettings(_ completion: @escaping @Sendable (DrawConfig?) -> Void) {
        whenReady({ [self] in completion(state.draw.config) }, otherwise: { completion(nil) })
    }
}

extension ClusterDrawNode {
    func storedSettings(_ completion: @escaping @Sendable (DrawConfig?) -> Void) {
        loop.execute { [self] in
            if let room { return room.storedSettings(completion) }
            store.client.send(["HGET", keys.meta, "config"]) { result in
                guard case .success(let reply) = result, let text = reply.string else { return completion(nil) }
                completion(DrawPersistence.decode(text))
            }
        }
    }
}
