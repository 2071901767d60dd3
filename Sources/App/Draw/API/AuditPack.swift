import DrawEngine
import JSON
import Posix
import Server

/// `GET /api/draws/<code>/auditpack.zip` (issue #41): the auditor's pack, for the host's key or an
/// observer's. The host export (what `export.json` gives that key), the whole audit log, the server's
/// key and the running binary's identity are gathered here; the ZIP is built off the loop.
/// `?event=1` (`EventPack`) gathers the same for each draw of the event.
enum AuditPack {
    static func respond(_ room: any DrawChannel, service: DrawService, responder: Responder) {
        let code = room.code
        gather(room, service: service) { outcome in
            switch outcome {
            case .success(let inputs): send(responder, filename: "tombola-\(code)-auditpack.zip") { try AuditPackDocuments.zip(inputs) }
            case .failure(let refusal): responder.respond(refusal.response)
            }
        }
    }

    /// One draw's pack inputs: its host export and its whole audit log (completion on any thread).
    static func gather(_ room: any DrawChannel, service: DrawService,
                       completion: @escaping @Sendable (Result<AuditPackDocuments.Inputs, HTTPResponseFailure>) -> Void) {
        let code = room.code
        let signer = service.settings.signer
        DrawAPI.exportText(room, withEntrants: true, signer: signer) { outcome in
            let exportText: String
            switch outcome {
            case .success(let text): exportText = text
            case .failure(let refusal): return completion(.failure(refusal))
            }
            AuditExport.entries(code: code, service: service) { result in
                guard case .success(let audit) = result else {
                    return completion(.failure(HTTPResponseFailure(APIError.response(service.cluster == nil ? "storage_failed" : "cluster_unavailable"))))
                }
                completion(.success(AuditPackDocuments.Inputs(code: code, exportText: exportText, audit: audit,
                                                              serverKey: ServerSigning.keyDocument(signer), software: BinaryIdentity.software,
                                                              madeAt: Int64(WallClock.unixMilliseconds()))))
            }
        }
    }

    /// Builds the ZIP on a thread of its own (verification and deflate are not the loop's work) and answers with it.
    static func send(_ responder: Responder, filename: String, build: @escaping @Sendable () throws -> [UInt8]) {
        let started = DetachedThread.start {
            guard let bytes = try? build() else { return responder.respond(APIError.response("storage_failed")) }
            var response = HTTPResponse(status: .ok, headers: ["Content-Type": "application/zip"], body: bytes)
            response.headers.add(name: "Content-Disposition", value: "attachment; filename=\"\(filename)\"")
            response.headers.add(name: "Cache-Control", value: "no-store")
            responder.respond(response)
        }
        if !started { responder.respond(APIError.response("busy")) }
    }
}
