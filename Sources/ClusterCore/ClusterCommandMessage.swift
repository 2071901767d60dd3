import DrawRoomCore
import DrawEngine
import JSON

/// A message on a draw's command channel `{d:CODE}:cmd` (every instance → the owner), with the
/// one encoder and the one decoder every publisher and the owner use (docs/CLUSTER.md, *Host
/// commands on any instance*, *Check-in*): a JSON object whose `kind` says what it is and whose
/// `from` names the sending instance.
package enum ClusterCommandMessage: Sendable {
    /// A follower's page count (once a second).
    case viewers(from: String, count: Int64)
    /// Page `page`'s entropy for the owner's next round (nil: the page left).
    case entropy(from: String, page: Int64, Contribution?)
    /// Page `page` belongs to `device` (the check-in cookie's hash; nil: it left).
    case device(from: String, page: Int64, device: String?)
    /// Request `id` of instance `from`; answered on `from`'s reply channel (`ClusterReply`).
    case request(ClusterRequest, from: String, id: UInt64)

    package var encoded: [UInt8] {
        var members: [String: JSONValue]
        switch self {
        case .viewers(let from, let count):
            members = ["kind": .string("viewers"), "from": .string(from), "count": .int(count)]
        case .entropy(let from, let page, let entropy):
            members = ["kind": .string("entropy"), "from": .string(from), "page": .int(page),
                       "entropy": entropy.map { .string($0.hex) } ?? .null]
        case .device(let from, let page, let device):
            members = ["kind": .string("device"), "from": .string(from), "page": .int(page), "device": device.map { .string($0) } ?? .null]
        case .request(let request, let from, let id):
            members = request.members
            members["from"] = .string(from)
            members["id"] = .int(Int64(id))
        }
        return Array(JSONValue.object(members).canonicalString.utf8)
    }

    /// The message in `payload`, or why it is not one. A request whose command or ask cannot be
    /// read is `.unreadableRequest`, which names whom to answer.
    package static func decode(_ payload: [UInt8]) throws(ClusterWireError) -> ClusterCommandMessage {
        guard let json = try? JSONValue.parse(payload), json.objectValue != nil else { throw .notJSON }
        guard let from = json["from"]?.stringValue else { throw .badMember("from") }
        let kind = json["kind"]?.stringValue
        switch kind {
        case "viewers":
            guard let count = json["count"]?.intValue, count >= 0 else { throw .badMember("count") }
            return .viewers(from: from, count: count)
        case "entropy":
            guard let page = json["page"]?.intValue else { throw .badMember("page") }
            switch json["entropy"] {
            case .null?: return .entropy(from: from, page: page, nil)
            case .string(let hex)?:
                guard let entropy = Contribution(hex: hex) else { throw .badMember("entropy") }
                return .entropy(from: from, page: page, entropy)
            default: throw .badMember("entropy")
            }
        case "device":
            guard let page = json["page"]?.intValue else { throw .badMember("page") }
            switch json["device"] {
            case .null?: return .device(from: from, page: page, device: nil)
            case .string(let device)? where ClusterNodeState.isDeviceHash(device): return .device(from: from, page: page, device: device)
            default: throw .badMember("device")
            }
        case "command", "checkin":
            guard let number = json["id"]?.intValue, number > 0 else { throw .badMember("id") }
            let id = UInt64(number)
            do throws(MessageError) {
                let request = kind == "command" ? try ClusterRequest.command(json) : try ClusterRequest.checkin(json["request"] ?? .null)
                return .request(request, from: from, id: id)
            } catch {
                throw .unreadableRequest(from: from, id: id, code: error.code)
            }
        default:
            throw .unknownKind(kind ?? "")
        }
    }
}

/// What a request asks the owner's room: a host command, or a check-in ask.
package enum ClusterRequest: Sendable {
    case command(HostCommand, seq: Int64?, client: String?, awaitReveal: Bool)
    case checkin(CheckinAsk)

    /// A phone's or a host's check-in question (docs/CLUSTER.md, *Check-in*).
    package enum CheckinAsk: Sendable, Equatable {
        /// A phone's join: its request body (the owner checks it against its settings), its device hash.
        case join(body: JSONValue, device: String)
        case claim(device: String)
        case read(CheckinQuery)
    }

    /// Whether this is a Stop (which may wait for a drand round).
    var isStop: Bool {
        if case .command(.stop, _, _, _) = self { return true }
        return false
    }

    fileprivate var members: [String: JSONValue] {
        switch self {
        case .command(let command, let seq, let client, let awaitReveal):
            return ["kind": .string("command"), "seq": seq.map { .int($0) } ?? .null, "client": client.map { .string($0) } ?? .null,
                    "await": .bool(awaitReveal), "command": command.forwardedJSON]
        case .checkin(let ask):
            let request: JSONValue
            switch ask {
            case .join(let body, let device): request = .object(["op": .string("join"), "body": body, "device": .string(device)])
            case .claim(let device): request = .object(["op": .string("claim"), "device": .string(device)])
            case .read(let query): request = query.json
            }
            return ["kind": .string("checkin"), "request": request]
        }
    }

    fileprivate static func command(_ json: JSONValue) throws(MessageError) -> ClusterRequest {
        let seq: Int64?
        switch json["seq"] {
        case nil, .null?: seq = nil
        case let value?:
            guard let number = value.intValue, number >= 0 else { throw .badField("seq") }
            seq = number
        }
        let client: String?
        switch json["client"] {
        case nil, .null?: client = nil
        case .string(let text)?: client = text
        default: throw .badField("client")
        }
        guard let body = json["command"] else { throw .badField("command") }
        return .command(try HostCommand(forwarded: body), seq: seq, client: client, awaitReveal: json["await"]?.boolValue == true)
    }

    fileprivate static func checkin(_ request: JSONValue) throws(MessageError) -> ClusterRequest {
        switch request["op"]?.stringValue {
        case "join":
            guard let body = request["body"], let device = request["device"]?.stringValue,
                  ClusterNodeState.isDeviceHash(device) else { throw .badField("request") }
            return .checkin(.join(body: body, device: device))
        case "claim":
            guard let device = request["device"]?.stringValue, ClusterNodeState.isDeviceHash(device) else { throw .badField("request") }
            return .checkin(.claim(device: device))
        default:
            guard let query = CheckinQuery(json: request) else { throw .badField("request") }
            return .checkin(.read(query))
        }
    }
}

/// Why bytes on a cluster channel are not a message of its format.
package enum ClusterWireError: Error, Equatable, Sendable {
    /// Not a JSON object.
    case notJSON
    /// A member is missing or not what it must be.
    case badMember(String)
    case unknownKind(String)
    /// A request of instance `from` whose command or ask cannot be read: the owner answers
    /// request `id` with `code` (the page protocol's error code) rather than leaving it to time out.
    case unreadableRequest(from: String, id: UInt64, code: String)
}
