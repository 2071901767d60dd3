import DrawRoomCore
import Server
import DrawEngine
import JSON
import Storage

/// Appends to each draw's hash-chained audit log. Keeps every chain's tail so an append does
/// not re-read the log; a failed transaction forgets the tail, so it is re-read next time.
///
/// `@unchecked Sendable`: `tails` is used only inside StorageQueue work, on the storage thread.
final class DrawAuditLog: @unchecked Sendable {
    private var tails: [String: (index: Int, hash: String)] = [:]

    func append(_ entry: AuditEntry, code: String, at: Int64, in database: Database) throws {
        let tail = try tails[code] ?? database.auditTail(drawCode: code) ?? (-1, RecordRow.genesisHash)
        let index = tail.index + 1
        let detail = entry.detail.canonicalString
        let body: JSONValue = .object([
            "draw": .string(code), "index": .int(Int64(index)), "at": .int(at), "actor": .string(entry.actor),
            "action": .string(entry.action), "detail": entry.detail, "prev": .string(tail.hash),
        ])
        let hash = DrawKeys.sha256Hex(body.canonicalBytes)
        tails[code] = nil
        try database.appendAudit(AuditRow(drawCode: code, index: index, at: Double(at) / 1000, actor: entry.actor,
                                          action: entry.action, detailJSON: detail, prevHash: tail.hash, hash: hash))
        tails[code] = (index, hash)
    }

    /// Call when the transaction around an append rolled back.
    func forget(_ code: String) {
        tails[code] = nil
    }
}
