import DrawEngine
import JSON

/// What a draw room announces to every page, as values: the room (`DrawRoomState`) returns
/// `.announce(…)` with one of these, `DrawWire` turns it into the page protocol's JSON text
/// (docs/PROTOCOL.md), and whoever relays it (cluster mode) reads the value, never the text.
public enum DrawAnnouncement: Sendable {
    case tick(DrawTick)
    case phase(DrawPhase)
    /// The `result` message (`DrawRecord.resultMessage`).
    case result(JSONValue)
    /// The `void` message, before the replacement's `result`.
    case void(JSONValue)
    /// The next round's commitment and pool lock (`PendingCommit.message`).
    case commit(PendingCommit)
    case cleared
    case viewers(Int)
    /// The `config` message after a configure: already text (the settings' summary is spliced
    /// in, encoded once per configure; `DrawRoomState.configMessageText`).
    case config(String)
    /// `{"type":"entrants","count","open"}`: the pool's size, throttled (a latest value).
    case entrants(JSONValue)
    /// The same with the form's settings, after a host's check-in command (delivered in order).
    case entrantsSettings(JSONValue)
    /// `{"type":"winners","round","names"}`: the names of a check-in round's winners that pages may show.
    case winners(round: Int, names: [String: JSONValue])
    /// `{"type":"claims",…}`: the latest claim round's windows (docs/PROTOCOL.md "Claims").
    case claims(JSONValue)
    /// `{"type":"pass",…}`: an unclaimed win passed to the next alternate (or to none).
    case pass(JSONValue)
    /// `{"type":"beacon",…}`: a beacon-sealed round waiting for, sealed by, or void of its drand round.
    case beacon(JSONValue)
    /// `{"type":"lock","round","index","hash","prev"}`: the chain's head once Start stored the
    /// round's `lock` record, before `phase` `rolling`, so every page's witness holds it
    /// (docs/FAIRNESS.md §14).
    case lock(JSONValue)
    /// `{"type":"signoff","signoffs":[…]}`: the session's observers' sign-offs once one more is stored (issue #41).
    case signoff(JSONValue)
    /// `{"type":"handover","round","winner","at","by","handedOver"}`: a prize was handed over (issue 45).
    case handover(JSONValue)

    /// How a relay must treat it (cluster mode's fan-out, docs/CLUSTER.md): a follower keeps the
    /// latest viewer count, forgets the latest tick on `cleared`, relays check-in winners'
    /// presence, and the owner keeps a rolling round's frozen inputs when it announces `rolling`.
    public var kind: DrawRoomState.BroadcastKind {
        switch self {
        case .viewers: .viewers
        case .cleared: .cleared
        case .phase(let phase): .phase(phase)
        case .winners: .checkinWinners
        case .tick, .result, .void, .commit, .config, .entrants, .entrantsSettings, .claims, .pass, .beacon, .lock, .signoff, .handover: .other
        }
    }

    /// Whether a page that falls behind may skip it for a newer one of its kind (ticks while
    /// rolling, the viewer and entrant counts); everything else is delivered in order.
    public var isLatestValue: Bool {
        switch self {
        case .tick(let tick): tick.isLatestValue
        case .viewers, .entrants: true
        default: false
        }
    }
}

/// One `tick`: a value rolling by, or during the slow-down with `landing` (how far it has come
/// and the first winner it lands on).
public struct DrawTick: Sendable, Equatable {
    public var seq: Int64
    /// Wall-clock milliseconds.
    public var at: Double
    public var value: DrawValue
    /// A checked-in entrant's name when the host made names public.
    public var name: String?
    public var landing: Landing?

    public init(seq: Int64, at: Double, value: DrawValue, name: String? = nil, landing: Landing? = nil) {
        self.seq = seq
        self.at = at
        self.value = value
        self.name = name
        self.landing = landing
    }

    public struct Landing: Sendable, Equatable {
        public var first: DrawValue
        public var step: Int
        public var steps: Int

        public init(first: DrawValue, step: Int, steps: Int) {
            self.first = first
            self.step = step
            self.steps = steps
        }
    }

    /// Rolling ticks and the slow-down's are a latest-value stream; the last, landing tick is not.
    public var isLatestValue: Bool {
        guard let landing else { return true }
        return landing.step < landing.steps
    }
}

/// A message for one page: its role, an error, a command's ack, or (hosts) the winners' presence.
public enum DrawPageMessage: Sendable, Equatable {
    case role(host: Bool)
    case error(code: String, seq: Int64?)
    case ack(JSONValue)
    case winnerPresence(JSONValue)
    /// (hosts) a page's witness report, relayed with the count (docs/PROTOCOL.md "Witness reports").
    case witness(JSONValue)
    /// (an operator's page, after `role`) `{"type":"operator","id","name","role"}` (issue #41).
    case operatorInfo(JSONValue)
    /// (a winner's phone only) `{"type":"voucher","vouchers":[…]}`: its prize vouchers (issue 45).
    case voucher(JSONValue)
}

/// The page protocol's encoder for what the room says (docs/PROTOCOL.md): the one place that
/// knows the JSON of `tick`, `phase`, `result`, `role`, `error`, … (the `state` snapshot is built
/// by `DrawRoomState.stateText`, which uses `json(_:)` for its `tick`).
public enum DrawWire {
    public static func text(_ announcement: DrawAnnouncement) -> String {
        switch announcement {
        case .tick(let tick): json(tick).canonicalString
        case .phase(let phase): phaseMessage(phase).canonicalString
        case .result(let message), .void(let message), .entrants(let message), .entrantsSettings(let message), .claims(let message),
             .pass(let message), .beacon(let message), .lock(let message), .signoff(let message), .handover(let message):
            message.canonicalString
        case .commit(let commit): commit.message.canonicalString
        case .cleared: JSONValue.object(["type": .string("cleared")]).canonicalString
        case .viewers(let count): JSONValue.object(["type": .string("viewers"), "count": .int(Int64(count))]).canonicalString
        case .config(let text): text
        case .winners(let round, let names):
            JSONValue.object(["type": .string("winners"), "round": .int(Int64(round)), "names": .object(names)]).canonicalString
        }
    }

    public static func text(_ message: DrawPageMessage) -> String {
        switch message {
        case .role(let host): JSONValue.object(["type": .string("role"), "role": .string(host ? "host" : "viewer")]).canonicalString
        case .error(let code, let seq): errorText(code, seq: seq)
        case .ack(let message), .winnerPresence(let message), .witness(let message), .operatorInfo(let message), .voucher(let message): message.canonicalString
        }
    }

    /// `{"type":"tick","seq","at","value"}`, with `name` and `landing` when they apply.
    public static func json(_ tick: DrawTick) -> JSONValue {
        var members: [String: JSONValue] = ["type": .string("tick"), "seq": .int(tick.seq), "at": .double(tick.at),
                                            "value": tick.value.json]
        if let name = tick.name { members["name"] = .string(name) }
        if let landing = tick.landing {
            members["landing"] = .object(["value": landing.first.json, "step": .int(Int64(landing.step)),
                                          "steps": .int(Int64(landing.steps))])
        }
        return .object(members)
    }

    /// `{"type":"error","code","message"}` (with the command's `seq` when it had one).
    public static func errorText(_ code: String, seq: Int64?) -> String {
        var members: [String: JSONValue] = ["type": .string("error"), "code": .string(code),
                                            "message": .string(DrawErrorText.message(for: code))]
        if let seq { members["seq"] = .int(seq) }
        return JSONValue.object(members).canonicalString
    }

    public static func phaseMessage(_ phase: DrawPhase) -> JSONValue {
        .object(["type": .string("phase"), "phase": .string(phase.rawValue)])
    }
}
