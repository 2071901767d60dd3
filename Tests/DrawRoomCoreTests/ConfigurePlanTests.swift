@testable import DrawRoomCore
import DrawEngine
import RoomTestSupport
import Testing

/// A large pool's configure is worked out off the loop (`Action.prepareConfigure`): the room's
/// queue waits for it as for a write, nothing is stored or announced before the outcome is back,
/// the outcome is what the same configure gives in place, and an outcome from another draw than
/// the room's is not applied (the command runs again).
@Suite struct ConfigurePlanTests {
    static let names = (1...(ConfigurePlan.offloadEntries + 1)).map { "Entrant \($0)" }

    func plans(_ actions: [DrawRoomState.Action]) -> [ConfigurePlan] {
        actions.compactMap { if case .prepareConfigure(let plan) = $0 { plan } else { nil } }
    }

    func storedBatch(_ actions: [DrawRoomState.Action]) -> RecordBatch? {
        for case .store(let batch) in actions { return batch }
        return nil
    }

    @Test func aLargeListIsPreparedOffTheLoopAndTheQueueWaitsForIt() throws {
        var room = try RoomHarness()
        room.runsConfigurePlans = false
        room.host()
        let configure = room.command(.configure(DrawConfig(pool: .list(Self.names), perStop: .count(2))))
        let plan = try #require(plans(configure.actions).first)
        #expect(plan.runsOffLoop)
        #expect(!configure.actions.storesSomething && configure.actions.reply(to: configure.caller) == nil)
        let remaining = try Draw(config: .standard).remaining
        #expect(room.state.isBusy && room.state.draw.remaining == remaining)

        // A Start given meanwhile waits in the queue: nothing runs, nothing is stored.
        let start = room.command(.start(audience: nil))
        #expect(!start.actions.storesSomething && start.actions.reply(to: start.caller) == nil)

        // The outcome is written as the configure in place would be, then the Start runs.
        let outcome = plan.run()
        let prepared = room.handle(.configurePrepared(outcome))
        let batch = try #require(storedBatch(prepared))
        #expect(batch.command == "configure" && batch.config?.contains("Entrant 2001") == true)
        let stored = room.handle(.stored(.success(())))
        #expect(try stored.reply(to: configure.caller)?.get() != nil)
        #expect(stored.broadcastTypes.contains("config"))
        #expect(room.state.draw.remaining == UInt64(Self.names.count))
        #expect(room.state.configText == DrawRoomState.publicConfigText(room.state.draw.config))
        #expect(storedBatch(stored)?.command == "start")
    }

    @Test func aSmallPoolIsConfiguredInPlace() throws {
        var room = try RoomHarness()
        room.runsConfigurePlans = false
        room.host()
        let configure = room.command(.configure(DrawConfig(pool: .list(Array(Self.names.prefix(ConfigurePlan.offloadEntries))))))
        #expect(plans(configure.actions).isEmpty && configure.actions.storesSomething)
    }

    @Test func aRefusedLargeConfigureIsAnsweredAndChangesNothing() throws {
        var room = try RoomHarness()
        room.runsConfigurePlans = false
        room.host()
        let before = room.state.configText
        let configure = room.command(.configure(DrawConfig(pool: .list(Self.names), exclude: [.name("Nobody")])))
        let plan = try #require(plans(configure.actions).first)
        let prepared = room.handle(.configurePrepared(plan.run()))
        #expect(prepared.reply(to: configure.caller) == .failure(CommandFailure(code: "bad_exclusion")))
        #expect(!prepared.storesSomething && !room.state.isBusy && room.state.configText == before)
    }

    @Test func anOutcomeFromAnotherDrawIsNotAppliedButRunAgain() throws {
        var room = try RoomHarness()
        room.runsConfigurePlans = false
        room.host()
        // An outcome worked out from a draw with a round more than the room's.
        var elsewhere = try RoomHarness()
        elsewhere.host()
        _ = elsewhere.start()
        _ = elsewhere.handle(.stored(.success(())))
        let stale = ConfigurePlan(base: elsewhere.state.draw, config: DrawConfig(pool: .list(Self.names)), pastWinners: []).run()

        let configure = room.command(.configure(DrawConfig(pool: .list(Self.names))))
        #expect(plans(configure.actions).count == 1)
        let again = room.handle(.configurePrepared(stale))
        #expect(!again.storesSomething && again.reply(to: configure.caller) == nil)
        let plan = try #require(plans(again).first)
        #expect(room.state.isBusy)
        #expect(storedBatch(room.handle(.configurePrepared(plan.run())))?.command == "configure")
    }
}
