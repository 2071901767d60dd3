import DrawEngine

/// A `configure` (or pool replacement) worked out from the draw as it stood: the validation, the
/// lock's hashing and the settings' two texts. Pure, and for 100,000 names hundreds of
/// milliseconds of CPU (a private list's public ids most of all), so a large one runs off the draw
/// loop (`Action.prepareConfigure`, the shell's `DetachedThread`: docs/ARCHITECTURE.md "Work off the
/// loop") while the room's queue waits for it, as it waits for a write; a small one runs in place.
public struct ConfigurePlan: Sendable {
    /// Pools with more entries than this are prepared off the loop (about 5 ms of work here).
    public static let offloadEntries = 2_000

    let base: Draw
    let config: DrawConfig
    let pastWinners: [PastWinners]

    /// The entries the pool lists (a range has none to validate or hash one by one).
    var entries: Int {
        switch config.pool {
        case .range: 0
        case .list(let names): names.count
        case .entries(let entrants): entrants.count
        case .checkin(let ids): ids.count
        case .books(let books): books.reduce(0) { $0 + Int(clamping: max(0, $1.to - $1.from + 1)) }
        }
    }

    var runsOffLoop: Bool { entries > Self.offloadEntries }

    public func run() -> ConfigureOutcome {
        var candidate = base
        do {
            let duplicates = try candidate.configure(config, pastWinners: pastWinners)
            return ConfigureOutcome(base: base, result: .success(.init(
                candidate: candidate, duplicates: duplicates, storedText: candidate.config.storedText,
                publicText: DrawRoomState.publicConfigText(candidate.config))))
        } catch {
            return ConfigureOutcome(base: base, result: .failure(CommandFailure(code: error.code)))
        }
    }

    /// The outcome when the system refuses a thread: `busy`, nothing changed (the loop does not
    /// take the work over: docs/ARCHITECTURE.md).
    public var refused: ConfigureOutcome { ConfigureOutcome(base: base, result: .failure(CommandFailure(code: "busy"))) }
}

/// What a `ConfigurePlan` gave, fed back as `Event.configurePrepared`.
public struct ConfigureOutcome: Sendable {
    struct Configured: Sendable {
        let candidate: Draw
        let duplicates: [String]
        let storedText: String
        let publicText: String
    }

    /// The draw it was worked out from: applied only if the room's draw is still that one.
    let base: Draw
    let result: Result<Configured, CommandFailure>

    /// Whether `draw` is the draw the plan started from (nothing is stored while a plan is out, so
    /// the record count and the phase tell; a mismatch runs the command again).
    func isBased(on draw: Draw) -> Bool {
        draw.recordCount == base.recordCount && draw.phase == base.phase && draw.lastHash == base.lastHash
    }
}
