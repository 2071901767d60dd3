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

    static func serve(round text: String, request: HTTPRequest, room: any DrawChannel, responder: Responder) {
        guard let round = BoardAPI.digits(text), round > 0 else {
            return responder.respond(APIError.response("unknown_round", status: .notFound))
        }
        guard let entry = QueryString.value(of: "entry", in: request.head.query), !EntrantList.trim(entry).isEmpty,
              entry.utf8.count <= longestEntry else {
            return responder.respond(APIError.response("bad_entry", status: .badRequest))
        }
        room.export { result in
            switch result {
            case .success(let records):
                do throws(EntryProof.Failure) {
                    var response = APIError.json(try EntryProof.proof(records: records, round: round, entry: entry))
                    response.headers.add(name: "Cache-Control", value: "no-cache")
                    responder.respond(response)
                } catch {
                    responder.respond(APIError.response(error.code, status: error == .notAList ? .badRequest : .notFound))
                }
            case .failure(let error):
                responder.respond(APIError.response(DrawPersistence.errorCode(error)))
            }
        }
    }
}
