import DrawEngine
import JSON

/// A host command, as the WebSocket `start`/`stop`/`clear`/`configure`/`void` messages and
/// the REST calls carry it. Both parse through here, so both validate the same way.
public enum HostCommand: Sendable {
    case start(audience: String?)
    case stop
    case clear
    /// `clear` with `"rehearsal":true`: wipe the session's rehearsal rounds (issue 45), a Clear
    /// that only a session of rehearsal rounds may take.
    case wipeRehearsal
    case configure(DrawConfig)
    case void(round: Int, winner: DrawValue, reason: String, audience: String?)
    /// Check-in (REST only): open/close entries, remove or erase entrants.
    case checkin(CheckinCommand)
    /// A new pool, the other settings kept (`PUT /api/draws/<code>/pool`); acknowledged as `configure`.
    case replacePool(PoolConfig)
    /// A sealed round waiting for its drand round R: ask the relays for R now (issue #40).
    case beaconRetry
    /// A sealed round waiting for R: give R up, on the record (a `beaconVoid` with this reason).
    case beaconAbandon(reason: String)
    /// An observer's sign-off of a round's lock or result (issue #41); only the role `observer` gives it.
    case signoff(Draw.SignoffRequest)
    /// The room's own job, never sent by a page: pass the wins whose claim windows ended (#26).
    case passUnclaimed
    /// Staff at the prize table (REST only, issue 45): look a voucher up, or hand its prize over.
    case handover(HandoverRequest)

    public var name: String {
        switch self {
        case .passUnclaimed: "pass"
        case .handover: "handover"
        case .checkin(let command): command.name
        case .start: "start"
        case .stop: "stop"
        case .clear, .wipeRehearsal: "clear"
        case .configure, .replacePool: "configure"
        case .void: "void"
        case .beaconRetry: "beaconRetry"
        case .beaconAbandon: "beaconAbandon"
        case .signoff: "signoff"
        }
    }
}

/// What a page sent on `/ws/draw/<code>`.
public enum ClientMessage: Sendable {
    case hello(entropy: Contribution?, client: String?)
    case auth(key: String, client: String?)
    /// Asks for a fresh `state` snapshot without reconnecting.
    case sync
    case command(HostCommand, seq: Int64?)
    /// A page saw a history that contradicts what it saw before (WitnessRelay.swift).
    case witness(WitnessReport)
}

/// Why a message could not be read; `code` is the protocol's error code.
public struct MessageError: Error, Sendable, Equatable {
    public let code: String
    public let detail: String

    public static func badJSON() -> MessageError { MessageError(code: "bad_json", detail: "not a JSON object") }
    public static func badField(_ name: String) -> MessageError { MessageError(code: "bad_message", detail: "bad or missing field \(name)") }
}

public enum DrawMessageParser {
    /// Parses one text frame.
    public static func parse(_ text: String) throws(MessageError) -> ClientMessage {
        guard let json = try? JSONValue.parse(text), json.objectValue != nil else { throw .badJSON() }
        guard let type = json["type"]?.stringValue else { throw .badField("type") }
        let client = try optionalClient(json)
        switch type {
        case "hello":
            var entropy: Contribution? = nil
            if let value = json["entropy"], !value.isNull {
                guard let hex = value.stringValue, let contribution = Contribution(hex: hex) else {
                    throw MessageError(code: "bad_entropy", detail: "entropy must be 32 hex digits")
                }
                entropy = contribution
            }
            return .hello(entropy: entropy, client: client)
        case "sync":
            return .sync
        case "witness":
            return .witness(try WitnessReport.parse(json, bytes: text.utf8.count))
        case "auth":
            guard let key = json["key"]?.stringValue else { throw .badField("key") }
            return .auth(key: key, client: client)
        case "start", "stop", "clear", "configure", "void", "beaconRetry", "beaconAbandon", "signoff":
            let seq = try sequenceNumber(json)
            return .command(try command(type, json), seq: seq)
        default:
            throw MessageError(code: "unknown_type", detail: "unknown message type")
        }
    }

    /// The command `type` from a message or REST body (`json` may be `{}`).
    public static func command(_ type: String, _ json: JSONValue) throws(MessageError) -> HostCommand {
        switch type {
        case "start":
            return .start(audience: try audience(json))
        case "stop":
            return .stop
        case "clear":
            // `{"rehearsal":true}`: the wipe of a session of rehearsal rounds.
            if let flag = json["rehearsal"], flag.boolValue == nil { throw .badField("rehearsal") }
            return json["rehearsal"]?.boolValue == true ? .wipeRehearsal : .clear
        case "configure":
            guard let config = json["config"] else { throw .badField("config") }
            return .configure(try drawConfig(config))
        case "void":
            guard let round = json["round"]?.intValue, let small = Int(exactly: round) else { throw .badField("round") }
            guard let winner = json["winner"].flatMap(DrawValue.init(json:)) else { throw .badField("winner") }
            guard let reason = json["reason"]?.stringValue else { throw .badField("reason") }
            return .void(round: small, winner: winner, reason: reason, audience: try audience(json))
        case "beaconRetry":
            return .beaconRetry
        case "beaconAbandon":
            guard let reason = json["reason"]?.stringValue else { throw .badField("reason") }
            return .beaconAbandon(reason: reason)
        case "signoff":
            return .signoff(try signoffRequest(json))
        case "handover":
            guard let code = json["code"]?.stringValue, code.utf8.count <= 64 else { throw .badField("code") }
            if let confirm = json["confirm"], confirm.boolValue == nil { throw .badField("confirm") }
            return .handover(HandoverRequest(code: code, confirm: json["confirm"]?.boolValue ?? false))
        default:
            throw MessageError(code: "unknown_type", detail: "unknown command")
        }
    }

    /// `config` of `configure` / the body of `PUT …/config`: settings with defaults for missing keys.
    public static func drawConfig(_ json: JSONValue) throws(MessageError) -> DrawConfig {
        guard json.objectValue != nil else { throw .badField("config") }
        do {
            return try DrawConfig(json: json)
        } catch {
            // An unknown display mode gets its own code: the field is right, its value is not one of four.
            if error.path == "mode" || error.path.hasSuffix(".mode") {
                throw MessageError(code: "bad_mode", detail: "config.\(error.path) must be number, reels, wheel or names")
            }
            if error.path == "slowDown" {
                throw MessageError(code: "bad_slow_down", detail: "config.slowDown must be a whole number of milliseconds, 1500 to 6000")
            }
            if error.path == "retentionDays" {
                throw MessageError(code: "bad_retention", detail: "config.retentionDays must be a whole number of days, 1 to 3650")
            }
            if error.path == "mask" {
                throw MessageError(code: "bad_mask", detail: "config.mask must be none, phones or names")
            }
            throw .badField("config." + error.path)
        }
    }

    private static func audience(_ json: JSONValue) throws(MessageError) -> String? {
        guard let value = json["audience"], !value.isNull else { return nil }
        if let text = value.stringValue { return text }
        // A number typed into a tool arrives as a JSON number; its digits are the same.
        if let number = value.intValue, number >= 0 { return String(number) }
        throw MessageError(code: "bad_audience", detail: "audience must be 1–32 digits")
    }

    private static func sequenceNumber(_ json: JSONValue) throws(MessageError) -> Int64? {
        guard let value = json["seq"], !value.isNull else { return nil }
        guard let seq = value.intValue, seq >= 0 else { throw .badField("seq") }
        return seq
    }

    private static func optionalClient(_ json: JSONValue) throws(MessageError) -> String? {
        guard let value = json["client"], !value.isNull else { return nil }
        guard let text = value.stringValue, (1...64).contains(text.utf8.count) else { throw .badField("client") }
        return text
    }
}
