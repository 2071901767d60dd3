import DrawEngine
import JSON

/// A host command as one cluster instance forwards it to the draw's owner (docs/CLUSTER.md,
/// *Host commands on any instance*): the page protocol's JSON for the WebSocket commands, read
/// back by the same `DrawMessageParser`, plus the REST-only check-in and pool commands. The
/// follower parsed and checked the command; this carries what it parsed.
extension HostCommand {
    /// The command's JSON. A configure's linked draws keep their `key` (the forwarding instance's
    /// proof that it checked the host key, never the key itself: `ClusterDrawNode.forwardable`).
    public var forwardedJSON: JSONValue {
        var members: [String: JSONValue] = ["type": .string(name)]
        switch self {
        case .start(let audience):
            members["audience"] = audience.map { .string($0) } ?? .null
        case .stop, .clear, .passUnclaimed, .beaconRetry:
            break
        case .beaconAbandon(let reason):
            members["reason"] = .string(reason)
        case .wipeRehearsal:
            members["rehearsal"] = .bool(true)
        case .configure(let config):
            guard case .object(var configJSON) = config.json else { break }
            if !config.excludeWinnersOf.isEmpty {
                configJSON["excludeWinnersOf"] = .array(config.excludeWinnersOf.map { link in
                    link.key.map { .object(["code": .string(link.code), "key": .string($0)]) } ?? .string(link.code)
                })
            }
            members["config"] = .object(configJSON)
        case .checkin(let command):
            members["type"] = .string("checkin")
            members["checkin"] = command.forwardedJSON
        case .replacePool(let pool):
            // Not a WebSocket command (`PUT …/pool` only).
            members["type"] = .string("replacePool")
            members["config"] = .object(["pool": DrawConfig(pool: pool).json["pool"] ?? .null])
        case .void(let round, let winner, let reason, let audience):
            members["round"] = .int(Int64(round))
            members["winner"] = winner.json
            members["reason"] = .string(reason)
            members["audience"] = audience.map { .string($0) } ?? .null
        case .signoff(let request):
            // Operators (and so observers) are single-box only (docs/CLUSTER.md); written out for completeness.
            members["statement"] = .string(request.statement.rawValue)
            members["round"] = .int(Int64(request.round))
            members["target"] = request.target.map { .string($0) } ?? .null
            members["publicKey"] = request.publicKey.map { .string($0) } ?? .null
            members["signature"] = request.signature.map { .string($0) } ?? .null
        case .handover(let request):
            // Single box only (cluster mode answers `handover_unsupported`); written out for completeness.
            members["code"] = .string(request.code)
            members["confirm"] = .bool(request.confirm)
        }
        return .object(members)
    }

    /// Reads `forwardedJSON` back; the parser's error for anything else (the owner answers it).
    public init(forwarded json: JSONValue) throws(MessageError) {
        guard let type = json["type"]?.stringValue else { throw .badField("type") }
        switch type {
        case "checkin":
            self = .checkin(try CheckinCommand(forwarded: json["checkin"] ?? .null))
        case "replacePool":
            self = .replacePool(try DrawMessageParser.drawConfig(json["config"] ?? .null).pool)
        default:
            self = try DrawMessageParser.command(type, json)
        }
    }
}

extension CheckinCommand {
    /// As forwarded to a cluster owner inside `HostCommand.forwardedJSON`.
    public var forwardedJSON: JSONValue {
        switch self {
        case .open(let settings): .object(["op": .string("open"), "settings": settings?.json ?? .null])
        case .close: .object(["op": .string("close")])
        case .remove(let id, let reason): .object(["op": .string("remove"), "id": .string(id), "reason": .string(reason)])
        case .erase: .object(["op": .string("erase")])
        case .expire(let days): .object(["op": .string("expire"), "days": .int(Int64(days))])
        }
    }

    /// Reads `forwardedJSON` back. The forwarding instance cleaned and checked the host's text
    /// (`CheckinSettings.parse`, NFC with Foundation, which this core does without): only the
    /// shape is checked here.
    public init(forwarded json: JSONValue) throws(MessageError) {
        switch json["op"]?.stringValue {
        case "open":
            guard let value = json["settings"] else { throw .badField("checkin.settings") }
            if value.isNull { self = .open(nil); return }
            guard let settings = CheckinSettings(forwarded: value) else { throw .badField("checkin.settings") }
            self = .open(settings)
        case "close": self = .close
        case "remove":
            guard let id = json["id"]?.stringValue, let reason = json["reason"]?.stringValue else { throw .badField("checkin") }
            self = .remove(id: id, reason: reason)
        case "erase": self = .erase
        case "expire":
            guard let days = json["days"]?.intValue else { throw .badField("checkin.days") }
            self = .expire(days: Int(days))
        default: throw .badField("checkin.op")
        }
    }
}

extension CheckinSettings {
    /// `json` read back (its `open` is the command's business, not the settings'); nil if malformed.
    init?(forwarded json: JSONValue) {
        self.init()
        guard case .bool(let presence)? = json["presence"], case .bool(let publicNames)? = json["publicNames"],
              let items = json["fields"]?.arrayValue, items.count <= Self.maxFields else { return nil }
        self.presence = presence
        self.publicNames = publicNames
        for item in items {
            guard let key = item["key"]?.stringValue, let label = item["label"]?.stringValue,
                  case .bool(let required)? = item["required"], case .bool(let unique)? = item["unique"],
                  let maxLength = item["maxLength"]?.intValue, (1...Int64(Self.maxValueLength)).contains(maxLength) else { return nil }
            fields.append(CheckinField(key: key, label: label, required: required, unique: unique, maxLength: Int(maxLength)))
        }
    }
}
