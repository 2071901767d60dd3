import DrawRoomCore
import JSON

/// The owner's answer to request `id`, on the forwarding instance's reply channel
/// `{i:INSTANCE}:replies` (one channel per instance, so `draw` says whose it is), with the one
/// encoder and the one decoder (docs/CLUSTER.md, *Host commands on any instance*). The follower
/// hands the outcome back unchanged: the host sees the acks and errors a single box gives.
package struct ClusterReply: Sendable, Equatable {
    package var draw: String
    package var id: UInt64
    package var outcome: Result<CommandReply, CommandFailure>

    package init(draw: String, id: UInt64, outcome: Result<CommandReply, CommandFailure>) {
        self.draw = draw
        self.id = id
        self.outcome = outcome
    }

    /// `{"draw","id","ok":true,"ack","result"}` or `{"draw","id","ok":false,"code","detail"}`.
    package var encoded: [UInt8] {
        var members: [String: JSONValue] = ["draw": .string(draw), "id": .int(Int64(id))]
        switch outcome {
        case .success(let reply):
            members["ok"] = .bool(true)
            members["ack"] = reply.ack
            members["result"] = reply.result ?? .null
        case .failure(let failure):
            members["ok"] = .bool(false)
            members["code"] = .string(failure.code)
            members["detail"] = failure.detail ?? .null
        }
        return Array(JSONValue.object(members).canonicalString.utf8)
    }

    /// A command's answer as the owner keeps it in `{d:CODE}:acks` (`{"ack","result"}`), so a
    /// command resent to any later owner gets it again (docs/CLUSTER.md, *Resending after a takeover*).
    package static func kept(_ reply: CommandReply) -> String {
        JSONValue.object(["ack": reply.ack, "result": reply.result ?? .null]).canonicalString
    }

    /// `kept`'s text read back.
    package static func keptReply(_ text: String) throws(ClusterWireError) -> CommandReply {
        guard let json = try? JSONValue.parse(text), json.objectValue != nil else { throw .notJSON }
        guard let ack = json["ack"], !ack.isNull else { throw .badMember("ack") }
        return CommandReply(ack: ack, result: json["result"].flatMap { $0.isNull ? nil : $0 })
    }

    package static func decode(_ payload: [UInt8]) throws(ClusterWireError) -> ClusterReply {
        guard let json = try? JSONValue.parse(payload), json.objectValue != nil else { throw .notJSON }
        guard let draw = json["draw"]?.stringValue else { throw .badMember("draw") }
        guard let number = json["id"]?.intValue, number > 0 else { throw .badMember("id") }
        guard case .bool(let ok)? = json["ok"] else { throw .badMember("ok") }
        if ok {
            guard let ack = json["ack"], !ack.isNull else { throw .badMember("ack") }
            let result = json["result"].flatMap { $0.isNull ? nil : $0 }
            return ClusterReply(draw: draw, id: UInt64(number), outcome: .success(CommandReply(ack: ack, result: result)))
        }
        guard let code = json["code"]?.stringValue else { throw .badMember("code") }
        let detail = json["detail"].flatMap { $0.isNull ? nil : $0 }
        return ClusterReply(draw: draw, id: UInt64(number), outcome: .failure(CommandFailure(code: code, detail: detail)))
    }
}
