import RedisStore
import Posix
import Testing

@Suite struct RedisClientTests {
    @Test func roundTripsBinarySafeValuesAsTypedReplies() async throws {
        let server = try RedisServer()
        try server.start()
        defer { server.stop() }
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown() }
        let client = harness.client
        let key = "k:\(uniqueDraw())"
        let value: [UInt8] = [0, 13, 10, 255, 36, 42, 0] + Array("héllo".utf8)

        #expect(await client.command([Array("SET".utf8), Array(key.utf8), value]).value == .status("OK"))
        #expect(await client.command([Array("GET".utf8), Array(key.utf8)]).value == .bulk(value))
        #expect(await client.command(["INCRBY", "\(key):n", "41"]).value == .integer(41))
        #expect(await client.command(["GET", "\(key):missing"]).value == .null)
        #expect(await client.command(["RPUSH", "\(key):l", "a", "", "c"]).value == .integer(3))
        #expect(await client.command(["LRANGE", "\(key):l", "0", "-1"]).value == .array([.bulk([97]), .bulk([]), .bulk([99])]))
        let wrongType = await client.command(["INCR", key])
        #expect(wrongType.error?.serverCode == "ERR")
        #expect(await client.command(["NOSUCHCOMMAND"]).error?.serverCode == "ERR")
        // The error did not disturb the connection.
        #expect(await client.command(["PING"]).value == .status("PONG"))
        #expect(await harness.readyCount() == 1)
    }

    @Test func pipelinedCommandsCompleteInIssueOrder() async throws {
        let server = try RedisServer()
        try server.start()
        defer { server.stop() }
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown() }
        let client = harness.client
        let key = "counter:\(uniqueDraw())"
        let values: [Int64] = await client.onLoop { done in
            var seen: [Int64] = []
            for _ in 0..<500 {
                client.send(["INCR", key]) { result in
                    seen.append(result.value?.integer ?? -1)
                    if seen.count == 500 { done(seen) }
                }
            }
        }
        #expect(values == Array(1...500))
    }

    @Test func commandsIssuedBeforeRedisRunsWaitAndThenRun() async throws {
        let server = try RedisServer()
        try server.reservePort()
        defer { server.stop() }
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown() }
        let key = "early:\(uniqueDraw())"
        async let early = harness.client.command(["SET", key, "v"], timeout: .seconds(20))
        // Redis is not there: the client keeps retrying with backoff.
        #expect(await eventually { await harness.state() == .waiting })
        try server.start()
        #expect(await early.value == .status("OK"))
        #expect(await harness.client.command(["GET", key]).value == .bulk(Array("v".utf8)))
    }

    @Test func aQueuedCommandThatTimesOutIsNeverSent() async throws {
        let server = try RedisServer()
        try server.reservePort()
        defer { server.stop() }
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown() }
        let key = "late:\(uniqueDraw())"
        #expect(await harness.client.command(["SET", key, "v"], timeout: .milliseconds(100)).error == .timedOut)
        try server.start()
        #expect(await eventually { await harness.state() == .ready })
        #expect(await harness.client.command(["EXISTS", key]).value == .integer(0))
    }

    @Test func aStalledRedisTimesTheCommandOutAndTheClientReconnectsByItself() async throws {
        let server = try RedisServer()
        try server.start()
        defer { server.stop() }
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.shutdown() }
        #expect(await harness.client.command(["PING"]).value == .status("PONG"))
        server.pause()
        let stalled = await harness.client.command(["PING"], timeout: .milliseconds(200))
        server.resume()
        #expect(stalled.error == .timedOut)
        #expect(await eventually { await harness.client.command(["PING"], timeout: .seconds(1)).value == .status("PONG") })
        // The timed-out command reset the connection: a second handshake happened.
        #expect(await harness.readyCount() >= 2)
    }

    @Test func closingFailsWaitingCommandsWithClosed() async throws {
        let server = try RedisServer()
        try server.reservePort()
        let harness = try Harness(endpoint: server.endpoint)
        defer { harness.group.shutdown() }
        async let waiting = harness.client.command(["PING"], timeout: .seconds(30))
        #expect(await eventually { await harness.state() == .waiting })
        harness.client.close()
        #expect(await waiting.error == .closed)
        #expect(await harness.client.command(["PING"]).error == .closed)
    }
}

/// The test helper itself: the Redis a test talks to is the one it started.
@Suite struct RedisServerTests {
    /// Another Redis already on the port answers PING; the child fails to bind and exits. Taken
    /// for a start, the test's commands would go to that other test's Redis (CI saw a SET answered
    /// and the GET after it not, once that Redis stopped).
    @Test func anotherRedisOnTheReservedPortIsNeverTakenForTheChild() throws {
        let foreign = try RedisServer()
        try foreign.start()
        defer { foreign.stop() }
        let server = try RedisServer()
        try server.reservePort(foreign.port)
        defer { server.stop() }
        #expect(throws: TestFailure.self) { try server.start() }
        #expect(RedisServer.serverProcessID(port: foreign.port) == foreign.pid)
    }

    @Test func portsAreHandedOutOnceAndBelowTheEphemeralRange() throws {
        let ports = try (0..<50).map { _ in try RedisServer.freePort() }
        #expect(Set(ports).count == ports.count)
        let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let low = try #require(range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) })
        // (A machine whose ephemeral range starts below 12,000 gets the kernel's picks instead.)
        #expect(low <= 12_000 || ports.allSatisfy { $0 < low && $0 >= low - 10_000 })
    }
}

@Suite struct RedisEndpointTests {
    @Test(arguments: [
        ("redis://127.0.0.1:6380", RedisEndpoint(host: "127.0.0.1", port: 6380)),
        ("redis://localhost", RedisEndpoint(host: "localhost", port: 6379)),
        ("redis://10.0.0.2:7000/3", RedisEndpoint(host: "10.0.0.2", port: 7000, database: 3)),
        ("redis://:s3cret@10.0.0.2:7000/1", RedisEndpoint(host: "10.0.0.2", port: 7000, database: 1, password: "s3cret")),
        ("redis://[::1]:6390", RedisEndpoint(host: "::1", port: 6390)),
    ])
    func parsesRedisURLs(url: String, expected: RedisEndpoint) {
        #expect(RedisEndpoint(url: url) == expected)
    }

    @Test(arguments: ["http://x:1", "redis://", "redis://h:0", "redis://h:99999", "redis://h:p", "redis://h/x", "redis://bob:pw@h", "redis://[::1"])
    func rejectsMalformedURLs(url: String) {
        #expect(RedisEndpoint(url: url) == nil)
    }

    @Test func neverPrintsThePassword() throws {
        let endpoint = try #require(RedisEndpoint(url: "redis://:hunter2@h:1/2"))
        #expect(!"\(endpoint)".contains("hunter2"))
        #expect("\(endpoint)" == "redis://:***@h:1/2")
    }
}
