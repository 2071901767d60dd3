import RedisStore
import Testing

@Suite struct DurabilityCheckTests {
    @Test func acceptsARedisThatFsyncsEveryWrite() async throws {
        let server = try RedisServer()
        try server.start()
        defer { server.stop() }
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown() }
        let report = try await harness.store.checkDurability().get()
        #expect(report == DurabilityReport(appendonly: "yes", appendfsync: "always"))
        #expect(report.isDurable)
    }

    @Test(arguments: [
        (["--appendonly", "no"], "no", "everysec"),
        (["--appendonly", "yes", "--appendfsync", "everysec"], "yes", "everysec"),
        (["--appendonly", "yes", "--appendfsync", "no"], "yes", "no"),
    ])
    func refusesARedisThatCouldLoseAcknowledgedWrites(arguments: [String], appendonly: String, appendfsync: String) async throws {
        let server = try RedisServer(arguments: arguments)
        try server.start()
        defer { server.stop() }
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown() }
        let refusal = await harness.store.checkDurability().error
        #expect(refusal == .notDurable(appendonly: appendonly, appendfsync: appendfsync))
        let message = "\(try #require(refusal))"
        #expect(message.contains("would lose acknowledged writes"))
        #expect(message.contains("appendonly yes and appendfsync always"))

        // The explicit override runs anyway and hands back what it found, to be logged loudly.
        let report = try await harness.store.checkDurability(allowUnsafe: true).get()
        #expect(!report.isDurable)
        #expect(report.appendonly == appendonly && report.appendfsync == appendfsync)
    }

    @Test func reportsAnUnreachableRedisAsUnavailableNotAsUnsafe() async throws {
        let server = try RedisServer()
        try server.reservePort()
        var options = RedisOptions.forTests
        options.commandTimeout = .milliseconds(200)
        let harness = try Harness(endpoint: server.endpoint, options: options)
        defer { harness.shutdown() }
        #expect(await harness.store.checkDurability().error == .unavailable(.timedOut))
    }
}
