import DrawEngine
import JSON
import RoomTestSupport
import Testing
@testable import ClusterCore
@testable import DrawRoomCore

/// A new owner carries on what the old one left (issue 32), with a manual clock and no Redis:
/// `ClusterResume` decides from the log, the rolling hint and the last snapshot, and the room
/// finishes a Stop live and numbers its ticks above the old owner's.
@Suite struct ClusterResumeTests {
    /// The old owner: a committed draw, a round started and stopped (its records stored), and
    /// the snapshot it published last, as kept in `{d:CODE}:snap`.
    struct OldOwner {
        var room: RoomHarness
        var records: [DrawRecord]
        var ticks: [Int64] = []

        init(slowDown: Duration = .milliseconds(1500)) throws {
            var draw = try Draw(config: .standard)
            let commit = try draw.prepareCommitment(seed: Seed(bytes: Array(repeating: 5, count: 32))!, at: 1_000)
            records = [commit]
            room = try RoomHarness(slowDown: slowDown)
            room.state = DrawRoomState(code: "ROOM", draw: draw, settings: room.state.settings)
            room.host()
        }

        /// Start, stored: the round's lock is in the log, the round rolls.
        mutating func start() {
            let start = room.start().actions
            for action in start { if case .store(let batch) = action { records += batch.records } }
            ticks += start.tickSeqs
        }

        /// Stop, stored: the round is stopping (not revealed). Returns the seed of the next commitment.
        mutating func stop() throws -> Seed {
            guard case .store(let batch)? = room.command(.stop).actions.first(where: \.isStore) else {
                throw DrawError.wrongPhase
            }
            records += batch.records
            ticks += room.handle(.stored(.success(()))).tickSeqs
            return try #require(batch.committedSeed)
        }

        var snapshot: String { "i1\n1\n7\nepoch 1-0\n" + room.state.stateText(for: nil) }
    }

    /// The new owner's draw: the log read back, the sealed seed taken up.
    static func rebuilt(_ records: [DrawRecord], seed: Seed) throws -> Draw {
        var draw = try Draw(config: .standard, restoring: records)
        try draw.resumeCommitment(seed)
        return draw
    }

    /// Runs the room's motion timers on the manual clock until none is due; every action, in order.
    static func runMotion(_ room: inout RoomHarness, from first: [DrawRoomState.Action]) -> [DrawRoomState.Action] {
        var all = first
        var due = first.motionDue
        while let instant = due {
            room.advance(instant - room.time.instant)
            let actions = room.handle(.timerDue(.motion))
            all += actions
            due = actions.motionDue
        }
        return all
    }

    @Test func aStopTakenAsTheOwnerDiesFinishesLiveOnTheNewOwner() throws {
        var old = try OldOwner()
        old.start()
        for _ in 0..<5 {
            old.room.advance(.milliseconds(50))
            old.ticks += old.room.handle(.timerDue(.motion)).tickSeqs
        }
        let seed = try old.stop()
        let shownByOld = try #require(old.room.state.draw.lastResult)
        old.room.advance(.milliseconds(400))
        old.ticks += old.room.handle(.timerDue(.motion)).tickSeqs  // one slow-down tick, then the owner dies

        // 600 ms after Stop ran, another instance has the lease and reads what was left.
        var draw = try Self.rebuilt(old.records, seed: seed)
        let now = shownByOld.at + 600
        let event = try #require(ClusterResume.resume(&draw, rolling: nil, snapshot: old.snapshot, now: now))
        guard case .resumeStopping(let elapsed) = event else {
            Issue.record("expected resumeStopping, got \(event)")
            return
        }
        #expect(elapsed == .milliseconds(600))
        #expect(draw.phase == .stopping)

        var new = try RoomHarness(slowDown: .milliseconds(1500))
        new.state = DrawRoomState(code: "ROOM", draw: draw, settings: new.state.settings)
        _ = new.handle(.continueTicks(after: old.ticks.max() ?? 0))
        let started = new.time.instant
        let actions = Self.runMotion(&new, from: new.handle(event))
        // What a page sees without a failure: stopping, slowing ticks landing on the first winner,
        // the result, revealed, the next commitment; the rest of the slow-down only (900 ms).
        let types = actions.broadcastTypes
        #expect(types.first == "phase" && types.suffix(4) == ["tick", "result", "phase", "commit"])
        #expect(types.filter { $0 == "tick" }.count > 3)
        let phases = actions.compactMap(\.broadcastJSON).filter { $0["type"]?.stringValue == "phase" }.map { $0["phase"]?.stringValue }
        #expect(phases == ["stopping", "revealed"])
        let result = try #require(actions.compactMap(\.broadcastJSON).first { $0["type"]?.stringValue == "result" })
        guard case .round(let stored) = shownByOld.body else { throw DrawError.wrongPhase }
        #expect(result["round"]?.intValue == Int64(stored.round))
        #expect(result["winners"] == .array(stored.winners.map(\.json)))
        let landing = try #require(actions.compactMap(\.broadcastJSON).last { $0["type"]?.stringValue == "tick" })
        #expect(landing["value"] == stored.winners.first?.json)
        let commit = try #require(actions.compactMap(\.broadcastJSON).last { $0["type"]?.stringValue == "commit" })
        #expect(commit["round"]?.intValue == Int64(stored.round + 1))
        // (the delays are whole microseconds: within a millisecond)
        let rest = new.time.instant - started
        #expect(rest > .milliseconds(899) && rest <= .milliseconds(900))
        // Tick seqs continue above every seq the old owner announced.
        let seqs = actions.tickSeqs
        #expect(seqs.first == (old.ticks.max() ?? 0) + 1)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 })
        #expect(new.state.draw.phase == .revealed)
    }

    @Test func aStopWhoseSlowDownIsOverLandsAtOnce() throws {
        var old = try OldOwner()
        old.start()
        let seed = try old.stop()
        let stopped = try #require(old.room.state.draw.lastResult)
        var draw = try Self.rebuilt(old.records, seed: seed)
        let event = try #require(ClusterResume.resume(&draw, rolling: nil, snapshot: old.snapshot, now: stopped.at + 4_000))
        var new = try RoomHarness()
        new.state = DrawRoomState(code: "ROOM", draw: draw, settings: new.state.settings)
        let actions = new.handle(event)
        #expect(actions.broadcastTypes == ["phase", "tick", "result", "phase", "commit"])
        #expect(actions.motionDue == nil)
        // The landing tick is reliable: a slow page still gets the winner it lands on.
        #expect(actions.contains { if case .announce(.tick(let tick)) = $0 { !tick.isLatestValue } else { false } })
    }

    @Test func aStopStoredBeforeItsStoppingSnapshotIsStillFinished() throws {
        // The owner died between the store and its `stopping` snapshot: the last snapshot is
        // the rolling one, whose commitment the stored round used.
        var old = try OldOwner()
        old.start()
        let rollingSnapshot = old.snapshot
        let seed = try old.stop()
        var draw = try Self.rebuilt(old.records, seed: seed)
        guard case .commit(let used, _) = old.records[0].body else { throw DrawError.wrongPhase }
        let hint = #"{"audience":null,"commitment":"\#(used)","contributions":[],"round":1}"#
        let event = ClusterResume.resume(&draw, rolling: hint, snapshot: rollingSnapshot, now: 10_000)
        guard case .resumeStopping? = event else {
            Issue.record("expected resumeStopping, got \(String(describing: event))")
            return
        }
    }

    @Test func aRevealedRoundIsNotShownAgainAndARollingOneRollsOn() throws {
        var old = try OldOwner()
        old.start()
        let seed = try old.stop()
        _ = Self.runMotion(&old.room, from: [.schedule(.motion, at: old.room.time.instant)])
        #expect(old.room.state.draw.phase == .revealed)
        var draw = try Self.rebuilt(old.records, seed: seed)
        #expect(ClusterResume.resume(&draw, rolling: nil, snapshot: old.snapshot, now: 10_000) == nil)
        #expect(draw.phase == .revealed)

        // The next round rolls when the owner dies: it rolls on with the inputs frozen at Start.
        old.start()
        let contribution = String(repeating: "ab", count: 16)
        let hint = #"{"audience":"12","commitment":"\#(try #require(draw.commit?.commitment))","contributions":["\#(contribution)"],"round":2}"#
        var rolling = try Self.rebuilt(old.records, seed: seed)
        let event = ClusterResume.resume(&rolling, rolling: hint, snapshot: old.snapshot, now: 10_000)
        guard case .resumeRolling? = event else {
            Issue.record("expected resumeRolling, got \(String(describing: event))")
            return
        }
        #expect(rolling.phase == .rolling && rolling.frozenAudience == "12")
        #expect(rolling.frozenContributions.map(\.hex) == [contribution])
    }

    /// A beacon-sealed draw whose round was started and stopped: the lock and the `beacon` record
    /// stored, drand round R asked for (`request`), nothing revealed yet.
    struct SealedOwner {
        static var config: DrawConfig {
            var config = DrawConfig.standard
            config.beacon = true
            return config
        }
        static let settings = DrawRoomSettings(tickHz: 20, slowDown: .milliseconds(300), beacon: BeaconSettings())
        var room: RoomHarness
        var records: [DrawRecord]
        var request: BeaconRequest

        init() throws {
            var draw = try Draw(config: Self.config)
            records = [try draw.prepareCommitment(seed: Seed(bytes: Array(repeating: 5, count: 32))!, at: 1_000)]
            room = try RoomHarness(config: Self.config)
            room.state = DrawRoomState(code: "ROOM", draw: draw, settings: Self.settings)
            room.host()
            for action in room.start().actions { if case .store(let batch) = action { records += batch.records } }
            guard case .store(let batch)? = room.command(.stop).actions.first(where: \.isStore) else { throw DrawError.wrongPhase }
            records += batch.records
            let stored = room.handle(.stored(.success(())))
            request = try #require(stored.beaconRequests.first)
        }

        var snapshot: String { "i1\n1\n7\nepoch 1-0\n" + room.state.stateText(for: nil) }
    }

    @Test func aRoundWaitingForItsDrandRoundIsFetchedAgainByTheNewOwner() throws {
        let old = try SealedOwner()
        #expect(old.records.map(\.kind) == ["commit", "lock", "beacon"])
        var draw = try Draw(config: SealedOwner.config, restoring: old.records)
        #expect(draw.sealing != nil && draw.phase == .rolling)
        // The old owner's rolling hint (written at Start) does not turn it back into a plain roll.
        let hint = #"{"audience":null,"commitment":"\#(try #require(draw.commit?.commitment))","contributions":[],"round":1}"#
        let event = ClusterResume.resume(&draw, rolling: hint, snapshot: old.snapshot, now: 10_000)
        guard case .resumeSealed? = event else {
            Issue.record("expected resumeSealed, got \(String(describing: event))")
            return
        }
        var room = try RoomHarness(config: SealedOwner.config)
        room.state = DrawRoomState(code: "ROOM", draw: draw, settings: SealedOwner.settings)
        let actions = room.handle(.resumeSealed)
        // The same drand round for the same lock: never another one.
        let request = try #require(actions.beaconRequests.first)
        #expect(request.beaconRound == old.request.beaconRound && request.lockHash == old.request.lockHash)
        #expect(room.state.draw.phase == .rolling && !actions.contains(where: \.isStore))
    }

    @Test func ticksContinueAboveTheHighestSeqAnnouncedAndNeverGoBack() throws {
        var room = try RoomHarness()
        room.host()
        _ = room.handle(.continueTicks(after: 500))
        _ = room.handle(.continueTicks(after: 20))  // an older figure never lowers it
        let first = room.start().actions.tickSeqs
        #expect(first == [501])
        room.advance(.milliseconds(50))
        #expect(room.handle(.timerDue(.motion)).tickSeqs == [502])
        let state = try JSONValue.parse(room.state.stateText(for: nil))
        #expect(state["tick"]?["seq"]?.intValue == 502)
    }
}

extension Array where Element == DrawRoomState.Action {
    /// The `seq` of every tick, in order.
    var tickSeqs: [Int64] {
        compactMap { if case .announce(.tick(let tick)) = $0 { tick.seq } else { nil } }
    }
}
