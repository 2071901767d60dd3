import DrawEngine
import Foundation
import JSON
import RedisStore
import Server
import Spreadsheet
import Storage

/// A draw's audit log for its host (`GET /api/draws/<code>/audit.csv` and `audit.xlsx`): one row
/// per entry in chain order (`index`, `at`, `actor`, `action`, `detail` as canonical JSON,
/// `prev`, `hash`), so the chain can be rechecked from the download. Read from SQLite (single
/// box) or from the draw's audit stream (cluster mode, docs/CLUSTER.md *Audit log*); never a
/// key in it.
enum AuditExport {
    static let header = ["index", "at", "actor", "action", "detail", "prev", "hash"]

    struct Entry: Sendable, Equatable {
        var index: Int
        var atMillis: Int64
        var actor: String
        var action: String
        var detail: String
        var prev: String
        var hash: String
    }

    static func table(_ entries: [Entry], timeZone: TimeZone = .current) -> ExportTable {
        let rows = entries.map { entry -> [SheetCell] in
            [.integer(Int64(entry.index)), ExportTable.time(millis: entry.atMillis, in: timeZone), .text(entry.actor),
             .text(entry.action), .text(entry.detail), .text(entry.prev), .text(entry.hash)]
        }
        return ExportTable(header: header, rows: rows, timeZone: timeZone, fractionalSeconds: true)
    }

    /// Answers the download in `format` (`csv` or `xlsx`) for draw `code`.
    /// `after`, `limit`: only the entries above index `after`, at most `limit` (`GET …/audit`'s window).
    static func respond(code: String, format: String, after: Int? = nil, limit: Int? = nil, service: DrawService, responder: Responder) {
        let answer: @Sendable (Result<[Entry], any Error>) -> Void = { result in
            switch result {
            case .success(let all):
                let above = after.map { after in all.filter { $0.index > after } } ?? all
                let entries = limit.map { Array(above.prefix($0)) } ?? above
                ExportTable.respondOffLoop(format: format, fileName: "tombola-\(code)-audit", sheetName: "Audit \(code)",
                                           responder: responder) { table(entries) }
            case .failure:
                responder.respond(APIError.response(service.cluster == nil ? "storage_failed" : "cluster_unavailable"))
            }
        }
        entries(code: code, service: service, completion: answer)
    }

    /// Every audit entry of draw `code`, in chain order: from SQLite (single box) or the draw's
    /// audit stream (cluster mode).
    static func entries(code: String, service: DrawService, completion answer: @escaping @Sendable (Result<[Entry], any Error>) -> Void) {
        if let cluster = service.cluster {
            let client = cluster.client
            Task {
                let reply = await client.command(["XRANGE", RedisDrawKeys(code: code).audit, "-", "+"])
                answer(reply.mapError { $0 as any Error }.flatMap { reply in
                    guard let entries = streamEntries(reply) else { return .failure(ClusterError.unexpectedReply("audit: \(reply)")) }
                    return .success(entries)
                })
            }
            return
        }
        service.storage.async({ database in
            try database.loadAudit(drawCode: code).map { row in
                Entry(index: row.index, atMillis: Int64((row.at * 1000).rounded()), actor: row.actor, action: row.action,
                      detail: row.detailJSON, prev: row.prevHash, hash: row.hash)
            }
        }, completion: answer)
    }

    /// The entries of an `XRANGE` of the audit stream: each entry's `json` is its canonical body
    /// (`draw index at actor action detail prev`), `hash` its SHA-256. Nil when the reply is not
    /// a stream's.
    static func streamEntries(_ reply: RedisReply) -> [Entry]? {
        guard let items = reply.array else { return nil }
        var entries: [Entry] = []
        for item in items {
            guard let fields = item.array?.last?.array else { return nil }
            var values: [String: String] = [:]
            for i in stride(from: 0, to: fields.count - 1, by: 2) {
                if let name = fields[i].string { values[name] = fields[i + 1].string }
            }
            guard let json = values["json"], let body = try? JSONValue.parse(json), let index = body["index"]?.intValue,
                  let at = body["at"]?.intValue, let hash = values["hash"] else { return nil }
            entries.append(Entry(index: Int(index), atMillis: at, actor: body["actor"]?.stringValue ?? "",
                                 action: body["action"]?.stringValue ?? "", detail: body["detail"]?.canonicalString ?? "{}",
                                 prev: body["prev"]?.stringValue ?? "", hash: hash))
        }
        return entries
    }
}
