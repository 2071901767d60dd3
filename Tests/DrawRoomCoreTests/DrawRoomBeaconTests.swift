import Crypto
import DrawEngine
import JSON
import RoomTestSupport
import Testing
@testable import DrawRoomCore

/// Beacon-sealed rounds in the room's state machine (docs/PROTOCOL.md, "Beacon-sealed rounds"):
/// Stop stores lock + beacon and keeps rolling, asks the shell to fetch R, a failure voids the seal
/// (still rolling). Cluster mode runs the same room (ClusterCoreTests: a new owner fetches the same R).
@Suite struct DrawRoomBeaconTests {
    static func config() -> DrawConfig {
        var config = DrawConfig.standard
        config.beacon = true
        return config
    }

    static func reply(_ actions: [DrawRoomState.Action]) -> Result<CommandReply, CommandFailure>? {
        for action in actions { if case .reply(_, let outcome) = action { return outcome } }
        return nil
    }

    static func storedKinds(_ actions: [DrawRoomState.Action]) -> [String]? {
        for action in actions { if case .store(let batch) = action { return batch.records.map(\.kind) } }
        return nil
    }

    static func beaconMessages(_ actions: [DrawRoomState.Action]) -> [JSONValue] {
        actions.compactMap(\.broadcastJSON).filter { $0["type"]?.stringValue == "beacon" }
    }

    static func request(_ actions: [DrawRoomState.Action]) throws -> BeaconRequest {
        try #require(actions.beaconRequests.first)
    }

    /// A room rolling a sealed round whose Stop stored its lock; the first request for R.
    static func sealedRoom() throws -> (RoomHarness, BeaconRequest, JSONValue) {
        var room = try RoomHarness(config: Self.config())
        room.state = DrawRoomState(code: "ROOM", draw: room.state.draw,
                                   settings: DrawRoomSettings(tickHz: 20, slowDown: .milliseconds(300), beacon: BeaconSettings()))
        #expect(Self.storedKinds(room.command(.start(audience: nil)).actions) == ["lock"], "Start stores the round's lock")
        _ = room.handle(.stored(.success(())))
        let (_, stop) = room.command(.stop)
        #expect(Self.storedKinds(stop) == ["beacon"])
        let actions = room.handle(.stored(.success(())))
        #expect(room.state.draw.phase == .rolling)
        let waiting = try #require(Self.beaconMessages(actions).first)
        return (room, try request(actions), waiting)
    }

    /// Issue #40: an attempt that gets no value stores nothing, keeps R and asks again later; a
    /// stale attempt's failure is dropped; the host's retry asks at once; R's value seals the round.
    @Test func noValueKeepsTheSameRoundAndAsksAgainUntilItComes() throws {
        var (room, request, waiting) = try Self.sealedRoom()
        #expect(waiting["status"]?.stringValue == "waiting" && waiting["round"]?.intValue == 1 && waiting["reason"]?.isNull == true)
        #expect(waiting["lock"]?.stringValue == room.state.draw.sealingHash, "pages' witnesses get the lock's hash before R is due")
        #expect(request.beaconRound == UInt64(waiting["beaconRound"]!.intValue!) && request.relays == BeaconChain.defaultRelays)
        #expect(request.deadlineMillis == request.dueMillis + 10_000 && request.startMillis == request.dueMillis && request.attempt == 1)
        // A second Stop while waiting is out of turn.
        #expect(Self.reply(room.command(.stop).actions) == .failure(CommandFailure(code: "wrong_phase")))

        room.advance(.seconds(20))
        var actions = room.handle(.beaconFetched(request, .failed("no relay answered round 9 in time (a: HTTP 503)")))
        #expect(Self.storedKinds(actions) == nil, "no void on record")
        let again = try Self.request(actions)
        #expect(again.beaconRound == request.beaconRound && again.lockHash == request.lockHash && again.attempt == 2)
        #expect(again.startMillis == room.state.now!.unixMilliseconds + 10_000)
        let still = try #require(Self.beaconMessages(actions).first)
        #expect(still["status"]?.stringValue == "waiting" && still["reason"]?.stringValue == "no relay answered round 9 in time (a: HTTP 503)")
        #expect(still["retryAt"]?.intValue == again.startMillis)
        #expect(room.state.draw.phase == .rolling && room.state.draw.sealing?.beaconRound == request.beaconRound)
        let state = try JSONValue.parse(room.state.stateText(for: nil))
        #expect(state["beacon"]?["status"]?.stringValue == "waiting" && state["beacon"]?["reason"]?.stringValue != nil)
        // The first attempt's late failure again changes nothing.
        #expect(room.handle(.beaconFetched(request, .failed("late"))).beaconRequests.isEmpty)
        // Still a Stop is out of turn: no new R, ever.
        #expect(Self.reply(room.command(.stop).actions) == .failure(CommandFailure(code: "wrong_phase")))

        // The host asks again now.
        let (caller, retry) = room.command(.beaconRetry)
        let now = try Self.request(retry)
        #expect(now.attempt == 3 && now.beaconRound == request.beaconRound && now.startMillis <= room.state.now!.unixMilliseconds)
        #expect(retry.compactMap { $0.reply(to: caller) }.first.map { if case .success = $0 { true } else { false } } == true)
        // Attempt 2's failure is overtaken by the retry.
        #expect(room.handle(.beaconFetched(again, .failed("stale"))).beaconRequests.isEmpty)
        // R's value, whichever attempt fetched it, finishes the round; skipped relays go in the audit entry.
        let randomness = SHA256.hexDigest(Array(repeating: 7, count: 48))
        let signature = String(repeating: "07", count: 48)
        actions = room.handle(.beaconFetched(again, .value(randomness: randomness, signature: signature, relays: ["a"]), skipped: ["b: bad signature"]))
        #expect(Self.storedKinds(actions) == ["beaconValue", "round", "commit"])
        let audit = try #require(actions.compactMap { action -> AuditEntry? in
            if case .store(let batch) = action { return batch.audit }
            return nil
        }.first)
        #expect(audit.detail["skipped"] == .array([.string("b: bad signature")]) && audit.detail["attempts"]?.intValue == 3)
    }

    /// Issue #40: only the host gives R up, on the record; retry and abandon need a waiting round.
    @Test func abandonIsOnTheRecordAndNeedsAReason() throws {
        var (room, request, _) = try Self.sealedRoom()
        #expect(Self.reply(room.command(.beaconAbandon(reason: "")).actions) == .failure(CommandFailure(code: "bad_reason")))
        var (_, actions) = room.command(.beaconAbandon(reason: "venue offline"))
        #expect(Self.storedKinds(actions) == ["beaconVoid"])
        actions = room.handle(.stored(.success(())))
        let void = try #require(Self.beaconMessages(actions).first)
        #expect(void["status"]?.stringValue == "void" && void["reason"]?.stringValue == "abandoned by the host: venue offline")
        #expect(room.state.draw.phase == .rolling && room.state.draw.sealing == nil)
        // An answer for the abandoned lock is dropped.
        #expect(Self.storedKinds(room.handle(.beaconFetched(request, .failed("late")))) == nil)
        #expect(Self.reply(room.command(.beaconRetry).actions) == .failure(CommandFailure(code: "wrong_phase")))
        #expect(Self.reply(room.command(.beaconAbandon(reason: "again")).actions) == .failure(CommandFailure(code: "wrong_phase")))
        // Stop again seals a new drand round under the same lock (the abandoned R's winners stay computable).
        #expect(Self.storedKinds(room.command(.stop).actions) == ["beacon"])
    }
}
