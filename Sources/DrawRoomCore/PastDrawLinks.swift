import DrawEngine

/// How a room reaches the other draws its settings name in `excludeWinnersOf`: their winners
/// as they stand (resolved at Start) and the proof that the host controls them (their host key,
/// checked when a `configure` links a draw). The shell (`DrawRoom`) wires these to the service;
/// a room without links knows no other draw.
public struct PastDrawLinks: Sendable {
    /// The winners of draw `code` now, or nil when there is no such draw.
    public var winners: @Sendable (_ code: String) -> PastWinners? = { _ in nil }
    /// Whether `key` is the host key of draw `code` (rate-limited like `auth`).
    public var controls: @Sendable (_ code: String, _ key: String) -> Bool = { _, _ in false }
    /// Whether any of draws `codes` is stored but not read back yet (its winners unknown).
    public var needsLoading: @Sendable (_ codes: [String]) -> Bool = { _ in false }
    /// Reads back the stored draws among `codes` that are not in memory yet, then calls
    /// `completion` (on any thread; also when some could not be read: their winners stay nil).
    public var load: @Sendable (_ codes: [String], _ completion: @escaping @Sendable () -> Void) -> Void = { _, completion in completion() }

    public init(winners: @escaping @Sendable (_ code: String) -> PastWinners? = { _ in nil },
                controls: @escaping @Sendable (_ code: String, _ key: String) -> Bool = { _, _ in false },
                needsLoading: @escaping @Sendable (_ codes: [String]) -> Bool = { _ in false },
                load: @escaping @Sendable (_ codes: [String], _ completion: @escaping @Sendable () -> Void) -> Void = { _, completion in completion() }) {
        self.winners = winners
        self.controls = controls
        self.needsLoading = needsLoading
        self.load = load
    }
}

extension DrawRoomState {
    /// A `configure` may keep the draws it already excludes; each newly linked one must exist, not
    /// be this draw, and come with its host key (`past_draw_key`), so a host can only tie its draw
    /// to draws it controls. The keys are dropped by validation: never stored, shown or logged.
    public func checkPastDraws(_ config: DrawConfig) throws(DrawError) {
        let linked = Set(draw.config.excludeWinnersOf.map(\.code))
        for link in config.excludeWinnersOf {
            let code = EntrantList.trim(link.code)
            guard code != self.code, links.winners(code)?.code == code else { throw .badPastDraw }
            if linked.contains(code) { continue }
            guard let key = link.key, links.controls(code, key) else { throw .pastDrawKey }
        }
    }

    /// The linked draws' winners, resolved now (for Start).
    public func resolvePastWinners() -> [PastWinners] {
        draw.config.excludeWinnersOf.compactMap { links.winners($0.code) }
    }
}
