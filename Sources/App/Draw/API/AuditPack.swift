import DrawEngine
import JSON
import Posix
import Server

/// `GET /api/draws/<code>/auditpack.zip` (issue #41): the auditor's pack, for the host's key or an
/// observer's. The host export (what `export.json` gives that key), the whole audit log, the server's
/// key and the running binary's identity are gathered here; the ZIP is built off the loop.
enum AuditPack {
    static func respond(_ room: any DrawChannel, service: DrawService, responder: Responder) {
        let code = room.code
        let signer = service.settings.signer
        DrawAPI.exportText(room, withEntrants: true, signer: signer) { outcome in
            let exportText: String
            switch outcome {
            case .success(let text): exportText = text
            case .failure(let refusal): return responder.respond(refusal.response)
            }
            AuditExport.entries(code: code, service: service) { result in
                guard case .success(let audit) = result else {
                    return responder.respond(APIError.response(service.cluster == nil ? "storage_failed" : "cluster_unavailable"))
                }
                let inputs = AuditPackDocuments.Inputs(code: code, exportText: exportText, audit: audit,
                                                       serverKey: ServerSigning.keyDocument(signer), software: BinaryIdentity.software,
                                                       madeAt: Int64(WallClock.unixMilliseconds()))
                let started = DetachedThread.start {
                    guard let bytes = try? AuditPackDocuments.zip(inputs) else { return responder.respond(APIError.response("storage_failed")) }
                    var response = HTTPResponse(status: .ok, headers: ["Content-Type": "application/zip"], body: bytes)
                    response.headers.add(name: "Content-Disposition", value: "attachment; filename=\"tombola-\(code)-auditpack.zip\"")
                    response.headers.add(name: "Cache-Control", value: "no-store")
                    responder.respond(response)
                }
                if !started { responder.respond(APIError.response("busy")) }
            }
        }
    }
}
