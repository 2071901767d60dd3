import DrawEngine
import DrawRoomCore
import JSON

/// The draw room's behaviour without sockets, loops or sleeps: events in with a manual
/// clock, actions out.
public struct RoomHarness {
    public var state: DrawRoomState
    public var time: DrawRoomState.Time
    public var random = SeededGenerator(seed: 42)
    private var nextCaller: UInt64 = 0

    /// `voucherKey`: prize vouchers on (issue 45), as a single box has them.
    public init(config: DrawConfig = .standard, tickHz: Int = 20, slowDown: Duration = .milliseconds(300),
                voucherKey: [UInt8]? = nil) throws {
        var draw = try Draw(config: config)
        _ = try draw.prepareCommitment(seed: Seed(bytes: Array(repeating: 7, count: 32))!, at: 1_000)
        var settings = DrawRoomSettings(tickHz: tickHz, slowDown: slowDown)
        settings.voucherKey = voucherKey
        state = DrawRoomState(code: "ROOM", draw: draw, settings: settings)
        time = DrawRoomState.Time(instant: .now, wallMilliseconds: 1_764_000_000_000)
    }

    public mutating func advance(_ duration: Duration) {
        time.instant += duration
        time.wallMilliseconds += Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    /// Whether `handle` works out a large configure's plan at once, as the shell does off the loop
    /// (`Action.prepareConfigure`), and feeds its outcome back; false leaves that to the test.
    public var runsConfigurePlans = true

    public mutating func handle(_ event: DrawRoomState.Event) -> [DrawRoomState.Action] {
        var actions = state.handle(event, at: time, using: &random)
        guard runsConfigurePlans else { return actions }
        while let index = actions.firstIndex(where: { if case .prepareConfigure = $0 { true } else { false } }) {
            guard case .prepareConfigure(let plan) = actions.remove(at: index) else { break }
            actions += state.handle(.configurePrepared(plan.run()), at: time, using: &random)
        }
        return actions
    }

    /// A host page: joined and authenticated.
    public mutating func host(_ id: UInt64 = 1) {
        _ = handle(.joined(id, remote: "10.0.0.\(id)"))
        _ = handle(.received(#"{"type":"auth","key":"k"}"#, from: id))
        _ = handle(.keyChecked(id, .accepted))
    }

    /// Start, with its lock stored at once (the store answers success): both steps' actions.
    public mutating func start(audience: String? = nil) -> (caller: UInt64, actions: [DrawRoomState.Action]) {
        let start = command(.start(audience: audience))
        guard start.actions.contains(where: \.isStore) else { return start }
        return (start.caller, start.actions + handle(.stored(.success(()))))
    }

    public mutating func command(_ command: HostCommand, seq: Int64? = nil, client: String? = nil,
                          awaitReveal: Bool = false) -> (caller: UInt64, actions: [DrawRoomState.Action]) {
        nextCaller += 1
        let actions = handle(.command(command, seq: seq, client: client, awaitReveal: awaitReveal, caller: nextCaller))
        return (nextCaller, actions)
    }
}

/// xorshift64*: deterministic randomness for the state machine's seeds and rolling values.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    public mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

extension DrawRoomState.Action {
    public var broadcastJSON: JSONValue? {
        switch self {
        case .announce(let announcement): return try? JSONValue.parse(DrawWire.text(announcement))
        default: return nil
        }
    }

    public var sent: (text: String, to: UInt64)? {
        if case .sendState(let snapshot, let id) = self { return (snapshot.text, id) }
        guard case .send(let message, let id) = self else { return nil }
        return (DrawWire.text(message), id)
    }

    public var scheduledAt: (timer: DrawRoomState.Timer, instant: ContinuousClock.Instant)? {
        guard case .schedule(let timer, let instant) = self else { return nil }
        return (timer, instant)
    }

    public var isStore: Bool {
        if case .store = self { return true }
        return false
    }

    public func reply(to caller: UInt64) -> Result<CommandReply, CommandFailure>? {
        guard case .reply(let target, let outcome) = self, target == caller else { return nil }
        return outcome
    }
}

extension Array where Element == DrawRoomState.Action {
    public var storesSomething: Bool { contains { $0.isStore } }
    public var broadcastTypes: [String] { compactMap { $0.broadcastJSON?["type"]?.stringValue } }
    public func sentTypes(to id: UInt64) -> [String] {
        compactMap { action in
            guard let sent = action.sent, sent.to == id else { return nil }
            return (try? JSONValue.parse(sent.text))?["type"]?.stringValue
        }
    }
    /// The drand rounds the room asks its shell to fetch.
    public var beaconRequests: [BeaconRequest] {
        compactMap { action in
            if case .fetchBeacon(let request) = action { return request }
            return nil
        }
    }
    public var motionDue: ContinuousClock.Instant? { compactMap(\.scheduledAt).last { $0.timer == .motion }?.instant }
    public func reply(to caller: UInt64) -> Result<CommandReply, CommandFailure>? { lazy.compactMap { $0.reply(to: caller) }.first }
}

/// A test's own failure, thrown with what went wrong.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
