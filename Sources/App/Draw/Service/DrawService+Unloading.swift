import DrawEngine
import Posix

/// Idle draws leave memory (issue 31, `--unload-idle-after`, single-box).
///
/// A draw read on its first use (DrawRoom+Loading.swift) used to stay in memory until the server
/// stopped. Now a sweep on the draw loop drops the state (`DrawRoomState`: the draw, its board,
/// the snapshots, the check-in book) of a room that has had no page and no request for the idle
/// time, and is settled: not rolling or slowing down, no write or command in flight, nothing
/// waiting. What it keeps is small, and is exactly what makes the next read identical:
///
/// - the seed of the draw's pending commitment (`DormantDraw`), so the read takes that
///   commitment up again (`Draw.resumeCommitment`) instead of storing a `restart` one: unloading
///   adds no record and abandons no commitment, and the round the pages saw committed is the one
///   drawn. Seeds stay in memory only, as before (docs/FAIRNESS.md: never stored);
/// - the round a previous run left interrupted (`state.interrupted`, until the next Start);
/// - the room itself (a shell on the draw loop: its code, host key digest, links, `BroadcastGroup`),
///   with the draw's winners for other draws' `excludeWinnersOf` (`DrawRoom.winners`): a linked
///   draw's Start resolves them from memory as before, without reading the unloaded draw.
///
/// Keeping the shell means nothing that already holds the room can reach a dead one: what reaches
/// an unloaded room waits in its queue exactly as during a first read (`holds` = 1), and the next
/// lookup (`DrawService.localRoom`) reads it back; anything queued on an unloaded room without a
/// lookup (a host key replaced by `tombola host-link`, a request that looked the room up before it
/// was unloaded and sends later) is read back by the next sweep.
///
/// Cluster mode (`--redis`) does not unload: a `ClusterDrawNode` holds its draw's lease and the
/// subscriptions of its pages' instance; giving those up needs a lease hand-off that is not built.
struct DormantDraw: Sendable {
    /// The pending commitment's seed (never stored, never shown).
    let seed: Seed
    let interrupted: Int?
    /// The chain as the room left it: the read takes the commitment up only if it still ends here.
    let recordCount: Int
    let lastHash: String

    /// Takes up the pending commitment on `draw` as just read back; false when the stored chain is
    /// not the one the room left (then the caller commits a `restart` as on a first read).
    func resume(_ draw: inout Draw) -> Bool {
        guard draw.recordCount == recordCount, draw.lastHash == lastHash else { return false }
        do { try draw.resumeCommitment(seed) } catch { return false }
        return true
    }
}

extension DrawService {
    /// The shortest idle time accepted: a room's throttled `viewers`/`entrants` announcements
    /// (at most 2 s after the last change) must be over before its state goes.
    static let minimumUnloadIdleSeconds = 5

    /// How often the sweep looks: a fifth of the idle time, between 1 s and 60 s.
    static func sweepInterval(idle: Duration) -> Duration {
        min(.seconds(60), max(.seconds(1), idle / 5))
    }

    /// Starts the idle sweep on the draw loop (single-box; `idleSeconds` 0 turns it off).
    func startUnloading(idleSeconds: Int) {
        guard cluster == nil, idleSeconds > 0 else { return }
        let idle = Duration.seconds(max(idleSeconds, Self.minimumUnloadIdleSeconds))
        let loop = group.loops[0]
        loop.execute { [weak self] in self?.scheduleSweep(idle: idle, on: loop) }
    }

    private func scheduleSweep(idle: Duration, on loop: EventLoop) {
        loop.scheduleTimer(after: Self.sweepInterval(idle: idle)) { [weak self] in
            guard let self else { return }
            sweepIdleRooms(idle: idle, now: .now)
            scheduleSweep(idle: idle, on: loop)
        }
    }

    /// Unloads every idle, settled room; reads back unloaded rooms something waits on. Draw loop only
    /// (every room lives there, so each room's state is read and dropped here, under the lock that
    /// `localRoom` takes: a room looked up since the idle time began is never unloaded).
    func sweepIdleRooms(idle: Duration, now: ContinuousClock.Instant) {
        var reload: [(room: DrawRoom, dormant: DormantDraw, archived: Bool)] = []
        let unloaded = known.withLock { known -> Int in
            var unloaded = 0
            for (code, room) in known.rooms {
                if let dormant = known.dormant[code] {
                    if room.hasQueuedWork {
                        known.dormant[code] = nil
                        known.lastUsed[code] = now
                        reload.append((room, dormant, known.archived.contains(code)))
                    }
                    continue
                }
                // A page connected counts as use: the idle time starts when the last one left.
                guard room.group.count == 0, let last = known.lastUsed[code] else {
                    known.lastUsed[code] = now
                    continue
                }
                guard now - last >= idle, let dormant = room.unloadIfSettled() else { continue }
                known.dormant[code] = dormant
                unloaded += 1
            }
            return unloaded
        }
        for entry in reload { reloadDormant(entry.room, entry.dormant, archived: entry.archived) }
        // The freed states are many small blocks: give the pages they leave back to the system.
        if unloaded > 0 { _ = mallocTrim(0) }
    }

    /// The room already made for `code` (exact, or upper-cased), loaded or not, without counting a
    /// use or reading anything (single-box).
    func existingRoom(_ code: String) -> DrawRoom? {
        guard cluster == nil else { return nil }
        return known.withLock { $0.rooms[code] ?? $0.rooms[code.uppercased()] }
    }

    /// Reads an unloaded room's draw back (its pending commitment taken up again).
    func reloadDormant(_ room: DrawRoom, _ dormant: DormantDraw, archived: Bool) {
        // Queued before what waits, as for a first read: an archived draw stays read-only.
        if archived { room.setArchived(true) { _ in } }
        load(room, resuming: dormant)
    }
}

/// glibc's `malloc_trim` (its header is not in the Glibc module): returns free heap pages to the system.
@_silgen_name("malloc_trim") private func mallocTrim(_ pad: Int) -> Int32

extension DrawRoom {
    /// Whether something waits for this room's draw.
    var hasQueuedWork: Bool { waitingHead < waiting.count || !restoredWaiters.isEmpty }

    /// Drops the room's state if nothing is moving, pending or connected, and returns what the next
    /// read needs to be identical; nil (and nothing changed) otherwise. Loop only.
    func unloadIfSettled() -> DormantDraw? {
        guard isLoaded, holds == 0, !hasQueuedWork, !loadFailed, announcer == nil, group.count == 0,
              state.members.isEmpty, state.isSettled, !state.checkin.timerArmed,
              let seed = state.draw.committedSeed else { return nil }
        let dormant = DormantDraw(seed: seed, interrupted: state.interrupted, recordCount: state.draw.recordCount,
                                  lastHash: state.draw.lastHash)
        unload()
        holds = 1
        publishedRecords = -1
        waiting = []
        waitingHead = 0
        return dormant
    }
}
