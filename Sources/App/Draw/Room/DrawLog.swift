import JSON
import DrawEngine
import Server

/// Operator-facing lines on stderr for draw problems (storage failures). Never a key: callers
/// pass codes, actions and `StorageError` descriptions, which carry no bound values.
enum DrawLog {
    /// A command's records are on disk: one `draw` event per command (JSON log only). Rounds
    /// carry their number, prize and winner count; commitments are hashes, never seeds.
    static func stored(_ records: [DrawRecord], command: String, code: String) {
        guard Log.format == .json else { return }
        var fields: [String: JSONValue] = [
            "draw": .string(code), "command": .string(command),
            "records": .array(records.map { .string($0.kind) }),
        ]
        for record in records {
            if case .round(let round) = record.body {
                fields["round"] = .int(Int64(round.round))
                fields["winners"] = .int(Int64(round.winners.count))
                if let prize = round.prize { fields["prize"] = .string(prize) }
            }
        }
        Log.event("draw", fields: fields, text: nil)
    }

    /// A round was rolling when the previous run stopped: no winner was drawn, its commitment is abandoned.
    static func interrupted(round: Int, code: String) {
        Log.event("draw.interrupted", fields: ["draw": .string(code), "round": .int(Int64(round))],
                  text: "tombola: draw \(code): round \(round) was interrupted before Stop; no winner was drawn")
    }

    static func resumed(round: Int, code: String) {
        Log.event("draw.resumed", fields: ["draw": .string(code), "round": .int(Int64(round))],
                  text: "tombola: draw \(code): round \(round) was rolling when the server stopped; it rolls on, on the lock its Start stored (the same winners)")
    }

    static func unresumable(round: Int, code: String, why: String) {
        Log.event("draw.unresumable", fields: ["draw": .string(code), "round": .int(Int64(round)), "why": .string(why)],
                  text: "tombola ALARM: draw \(code): round \(round) was rolling when the server stopped and cannot roll on (\(why)); it is abandoned on the record")
    }

    static func error(_ text: String, code: String) {
        Log.error("draw.error", text, fields: ["draw": .string(code)])
    }
}
