import DrawRoomCore
import JSON
import Server
import DrawEngine
import HTTPCore

/// `POST /api/draws/<code>/import[?duplicates=merge]`: the body (pasted TSV or a CSV file) as an
/// import preview. Nothing is saved; the host page sends the entrants in a `configure`.
enum EntrantImportAPI {
    /// Entrants shown as the preview's first rows.
    static let firstRows = 20

    static func preview(_ request: HTTPRequest) -> HTTPResponse {
        let policy: EntrantImport.DuplicatePolicy
        switch QueryString.value(of: "duplicates", in: request.head.query) {
        case nil, "reject": policy = .reject
        case "merge": policy = .merge
        default: return APIError.response("bad_message")
        }
        do {
            return APIError.json(json(try EntrantImport.preview(of: request.body, duplicates: policy)))
        } catch {
            return errorResponse(error)
        }
    }

    /// A whole-import error: `413` for a file over the import limit, else `400`, with its code and line.
    static func errorResponse(_ error: ImportError) -> HTTPResponse {
        var members: [String: JSONValue] = ["code": .string(error.code), "message": .string(DrawErrorText.message(for: error.code))]
        if let line = error.line { members["line"] = .int(Int64(line)) }
        var response = HTTPResponse.json(error.kind == .tooLarge ? .contentTooLarge : .badRequest,
                                         JSONValue.object(["error": .object(members)]).canonicalBytes)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    static func json(_ preview: EntrantImport.Preview, withEntrants: Bool = true) -> JSONValue {
        func entrant(_ e: Entrant) -> JSONValue {
            var members: [String: JSONValue] = ["name": .string(e.name), "tickets": .int(Int64(e.tickets))]
            if let id = e.id { members["id"] = .string(id) }
            if let group = e.group { members["group"] = .string(group) }
            return .object(members)
        }
        var members: [String: JSONValue] = [
            "separator": .string(preview.separator),
            "encoding": .string(preview.encoding.rawValue),
            "header": .bool(preview.header),
            "columns": .object(preview.columns.mapValues { .int(Int64($0)) }),
            "count": .int(Int64(preview.entrants.count)),
            "tickets": .int(Int64(preview.tickets)),
            "first": .array(preview.entrants.prefix(firstRows).map(entrant)),
            "duplicates": .array(preview.duplicates.map {
                .object(["name": .string($0.name), "lines": .array($0.lines.map { .int(Int64($0)) })])
            }),
            "rejected": .array(preview.rejected.map { .object(["line": .int(Int64($0.line)), "reason": .string($0.reason)]) }),
            "rejectedCount": .int(Int64(preview.rejectedCount)),
        ]
        if withEntrants { members["entrants"] = .array(preview.entrants.map(entrant)) }
        return .object(members)
    }
}
