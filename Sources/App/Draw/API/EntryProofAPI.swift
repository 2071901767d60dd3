import DrawEngine
import HTTPCore
import JSON
import Server

/// `GET /api/draws/<code>/rounds/<n>/proof?entry=…` (docs/PROTOCOL.md, "Entry proofs"): one
/// entrant's leaf and audit path to the entry tree root of round n's `lock` record. Public: the
/// entry is a public id (check-in) or a name of a list pool, both already in the public chain.
enum EntryProofAPI {
    /// Longest `entry` accepted (a list name is at most 200 UTF-8 bytes).
    static let longestEntry = 200

    static func serve(round text: String, request: HTTPRequest, room: any DrawChannel, cache: EntryProofCache, responder: Responder) {
        guard let round = BoardAPI.digits(text), round > 0 else {
            return responder.respond(APIError.response("unknown_round", status: .notFound))
        }
        guard let entry = QueryString.value(of: "entry", in: request.head.query), !EntrantList.trim(entry).isEmpty,
              entry.utf8.count <= longestEntry else {
            return responder.respond(APIError.response("bad_entry", status: .badRequest))
        }
        cache.round(.init(code: room.code, round: round), build: { built in
            room.export { result in
                switch result {
                case .success(let records):
                    do throws(EntryProof.Failure) {
                        built(.round(try EntryProof.Round(records: records, round: round)))
                    } catch {
                        built(.failed(error))
                    }
                case .failure(let error):
                    built(.unreadable(DrawPersistence.errorCode(error)))
                }
            }
        }, then: { built in
            switch built {
            case .round(let tree):
                do throws(EntryProof.Failure) {
                    var response = APIError.json(try tree.proof(entry: entry))
                    response.headers.add(name: "Cache-Control", value: "no-cache")
                    responder.respond(response)
                } catch {
                    responder.respond(failure(error))
                }
            case .failed(let error):
                responder.respond(failure(error))
            case .unreadable(let code):
                responder.respond(APIError.response(code))
            }
        })
    }

    private static func failure(_ error: EntryProof.Failure) -> HTTPResponse {
        APIError.response(error.code, status: error == .notAList ? .badRequest : .notFound)
    }
}
