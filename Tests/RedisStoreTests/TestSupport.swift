import RedisStore
import Foundation
import Posix

/// A one-loop group, a started client and a store on it, all torn down by `shutdown()`.
final class Harness: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; the client and store are Sendable themselves.
    let group: EventLoopGroup
    let client: RedisClient
    let store: ClusterStore

    init(endpoint: RedisEndpoint, options: RedisOptions = .forTests) throws {
        group = try EventLoopGroup(loopCount: 1)
        client = RedisClient(endpoint: endpoint, loop: group.next(), options: options)
        store = ClusterStore(client: client)
        client.start()
    }

    var loop: EventLoop { group.loops[0] }

    func shutdown() {
        client.close()
        group.shutdown()
    }

    /// The client's state, read on its loop.
    func state() async -> RedisConnectionState {
        await client.onLoop { done in done(self.client.state) }
    }

    func readyCount() async -> Int {
        await client.onLoop { done in done(self.client.readyCount) }
    }
}

extension RedisOptions {
    static var forTests: RedisOptions {
        var options = RedisOptions()
        options.commandTimeout = .seconds(5)
        options.connectTimeout = .seconds(2)
        options.initialBackoff = .milliseconds(20)
        options.maximumBackoff = .milliseconds(200)
        return options
    }
}

/// A private server, a harness on it and a lease held by "a" on a fresh draw.
func leasedDraw(ttl: Duration = .seconds(30)) async throws -> (RedisServer, Harness, OwnerLease) {
    let server = try RedisServer()
    try server.start()
    let harness = try Harness(endpoint: server.endpoint)
    guard case .acquired(let lease) = try await harness.store.acquireLease(draw: uniqueDraw(), owner: "a", ttl: ttl).get() else {
        harness.shutdown()
        server.stop()
        throw TestFailure("a free lease was not acquired")
    }
    return (server, harness, lease)
}

/// A draw code no other test uses.
func uniqueDraw() -> String { "T" + UUID().uuidString.prefix(8).uppercased() }

/// Waits for `condition` until `timeout`, checking every few milliseconds; returns whether it held.
func eventually(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

/// A record chain for tests: record i links to record i-1 by hash (a stand-in hash: the
/// store checks links, not how hashes are computed).
func chain(_ count: Int, startingAt start: Int = 0, after prev: String = LogRecord.genesisPrev, tag: String = "r") -> [LogRecord] {
    var records: [LogRecord] = []
    var previous = prev
    for index in start..<(start + count) {
        let hash = "hash-\(tag)-\(index)"
        let json = #"{"index":\#(index),"kind":"test","tag":"\#(tag)"}"#
        records.append(LogRecord(index: index, hash: hash, prev: previous, json: json, idempotencyKey: "\(tag)-\(index)"))
        previous = hash
    }
    return records
}

extension Result {
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var value: Success? { try? get() }
}
