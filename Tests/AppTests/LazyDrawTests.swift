import Dispatch
import Foundation
import DrawEngine
import JSON
import Locking
import Server
import Storage
import Testing
@testable import App
import TestSupport

/// Issue 18, start-up: a server reads only its draws' codes at start-up and each draw on its
/// first use. On real SQLite files: history laid down by `HistoryGenerator` and by real rounds,
/// read back lazily with every guarantee a start-up restore gave.
@Suite(.serialized) struct LazyDrawTests {
    /// The `commit` records of an export with reason `restart`.
    static func restartCommits(_ export: String) throws -> Int {
        let records = try JSONValue.parse(export)["records"]?.arrayValue ?? []
        return records.filter { $0["kind"]?.stringValue == "commit" && $0["reason"]?.stringValue == "restart" }.count
    }

    @Test func aStoredDrawIsReadOnItsFirstRequestRevealedOnItsLatestRoundAndTheChainContinues() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(30))
        defer { server.stop() }
        var winners = [JSONValue]()
        for _ in 0..<2 {
            #expect(try server.command("start").status == 200)
            winners.append(try #require(try server.command("stop").json["result"]?["winners"]))
        }
        let before = try server.state()
        try server.restart()
        #expect(server.service.loadedRoomCount == 0, "start-up reads no draw")
        #expect(server.service.drawCodes == [DrawTestServer.code])

        // A page is the first use: it waits for the draw and gets it as a restore showed it.
        let page = try server.connect()
        let joined = try page.next(type: "state")
        #expect(joined["phase"]?.stringValue == "revealed")
        #expect(joined["result"]?["round"]?.intValue == 2 && joined["result"]?["winners"] == winners[1])
        #expect(joined["rounds"]?.arrayValue?.map { $0["winners"]! } == winners)
        let commitment = try #require(joined["commit"]?["commitment"]?.stringValue)
        #expect(commitment != before["commit"]?["commitment"]?.stringValue, "a fresh commitment for this run")
        #expect(server.service.loadedRoomCount == 1)

        let restarted = try server.exportJSON()
        #expect(try Self.restartCommits(restarted) == 1)
        #expect(try RoundVerifier.verify(exportText: restarted).passed)
        #expect(try server.command("start").status == 200)
        let third = try server.command("stop").json["result"]
        #expect(third?["round"]?.intValue == 3 && third?["commitment"]?.stringValue == commitment)
        let report = try RoundVerifier.verify(exportText: try server.exportJSON())
        #expect(report.passed && report.roundCount == 3)
    }

    @Test func generatedHistoryIsReadLikeRealHistoryAndVerifies() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(30))
        defer { server.stop() }
        let summary = try HistoryGenerator.run(dataDirectory: server.dataDirectory, draws: 3, rounds: 5, roundsPerSession: 2,
                                               prefix: "GEN", hostKey: DrawTestServer.hostKey)
        #expect(summary.draws == 3)
        try server.restart()
        #expect(Set(server.service.drawCodes) == [DrawTestServer.code, "GEN-0001", "GEN-0002", "GEN-0003"])
        #expect(server.service.loadedRoomCount == 0)

        let state = try server.state(code: "GEN-0002")
        // Rounds 1–2, Clear, 3–4, Clear, 5: the session on show is round 5 alone.
        #expect(state["phase"]?.stringValue == "revealed")
        #expect(state["result"]?["round"]?.intValue == 5)
        #expect(state["rounds"]?.arrayValue?.count == 1)
        #expect(state["round"]?.intValue == 6)
        let generated = try server.exportJSON(code: "GEN-0002")
        let report = try RoundVerifier.verify(exportText: generated)
        #expect(report.passed && report.roundCount == 5, "\(report.checks.filter { !$0.ok })")
        #expect(try Self.restartCommits(generated) == 1)

        #expect(try server.command("start", code: "GEN-0002").status == 200)
        #expect(try server.command("stop", code: "GEN-0002").json["result"]?["round"]?.intValue == 6)
        let continued = try RoundVerifier.verify(exportText: try server.exportJSON(code: "GEN-0002"))
        #expect(continued.passed && continued.roundCount == 6)
        #expect(server.service.loadedRoomCount == 1, "only the draw in use was read")
    }

    @Test func concurrentFirstRequestsShareOneRoomAndOneRestartCommitment() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(30))
        defer { server.stop() }
        _ = try HistoryGenerator.run(dataDirectory: server.dataDirectory, draws: 1, rounds: 3, prefix: "RACE",
                                     hostKey: DrawTestServer.hostKey)
        try server.restart()
        let service = server.service
        let endpoint = FixedPort(port: server.port)
        let rooms = Lock<[ObjectIdentifier]>([])
        let statuses = Lock<[Int]>([])
        // Threads of their own, not the test runner's: the requests block while the draw is read.
        let finished = Lock(0)
        for index in 0..<32 {
            Thread {
                if index % 2 == 0 {
                    if let room = service.localRoom("RACE-0001") { rooms.withLock { $0.append(ObjectIdentifier(room)) } }
                } else {
                    let status = (try? endpoint.request("GET", "/api/draws/RACE-0001").status) ?? 0
                    statuses.withLock { $0.append(status) }
                }
                finished.withLock { $0 += 1 }
            }.start()
        }
        #expect(waitUntil(timeout: .seconds(60)) { finished.withLock { $0 } == 32 })
        #expect(rooms.withLock { $0.count } == 16 && Set(rooms.withLock { $0 }).count == 1)
        #expect(statuses.withLock { $0 } == Array(repeating: 200, count: 16))
        #expect(service.loadedRoomCount == 1)
        let export = try server.exportJSON(code: "RACE-0001")
        #expect(try Self.restartCommits(export) == 1, "one room, one read, one commitment")
        #expect(try RoundVerifier.verify(exportText: export).passed)
    }

    @Test func theDrawGaugeCountsStoredDrawsAndTheLoadedGaugeTheOnesInUse() throws {
        let data = try makeTemporaryDirectory()
        defer { removeTree(data) }
        _ = try HistoryGenerator.run(dataDirectory: data, draws: 4, rounds: 1, prefix: "M", hostKey: DrawTestServer.hostKey)
        let metrics = MetricsRegistry()
        let service = try DrawService.open(configuration: AppConfiguration(host: "127.0.0.1", port: 0, dataDirectory: data),
                                           metrics: metrics)
        defer { service.shutdown() }
        #expect(service.defaultDraw.code == "M-0001" && !service.defaultDraw.created)
        let text = metrics.render()
        #expect(text.contains("tombola_draw_rooms 4\n"), "\(text)")
        #expect(text.contains("tombola_draw_rooms_loaded 0\n"))
        let room = try #require(service.localRoom("m-0003"), "codes are found upper-cased, as before")
        let state = Lock<String?>(nil)
        room.publicState { text in state.withLock { $0 = text } }
        #expect(waitUntil { state.withLock { $0 } != nil })
        #expect(metrics.render().contains("tombola_draw_rooms_loaded 1\n"))
        #expect(service.localRoom("NOPE") == nil && metrics.render().contains("tombola_draw_rooms 4\n"))
    }

    @Test func aDrawThatCannotBeReadIsRefusedWhileTheOthersServe() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(30))
        defer { server.stop() }
        _ = try HistoryGenerator.run(dataDirectory: server.dataDirectory, draws: 1, rounds: 2, prefix: "BAD",
                                     hostKey: DrawTestServer.hostKey)
        // A record that links correctly but is not a record: the chain cannot be read back.
        let storage = try StorageQueue(directory: server.dataDirectory)
        try storage.sync { database in
            let last = try #require(try database.loadRecords(drawCode: "BAD-0001").last)
            try database.appendRecord(RecordRow(drawCode: "BAD-0001", index: last.index + 1, round: 0, kind: "commit",
                                                json: "not a record", hash: String(repeating: "1", count: 64),
                                                prevHash: last.hash, createdAt: 0))
        }
        storage.close()
        try server.restart()

        #expect(try server.request("GET", "/api/draws/BAD-0001").errorCode == "storage_failed")
        #expect(try server.command("start", code: "BAD-0001").errorCode == "storage_failed")
        // Paths that read the room's state (check-in's pool, the board's pages) answer too, never hang.
        #expect(try server.request("GET", "/api/draws/BAD-0001/entries/pool").errorCode == "storage_failed")
        #expect(try server.request("GET", "/api/draws/BAD-0001/rounds").errorCode == "storage_failed")
        #expect(server.service.loadedRoomCount == 0, "forgotten, so a later request reads it again")
        #expect(try server.state()["phase"]?.stringValue == "idle", "the other draws serve")
        #expect(server.service.drawCodes.count == 2)
    }

    @Test func aHostLinkIssuedForADrawNotReadYetWorksOnItsFirstUse() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(30))
        defer { server.stop() }
        _ = try HistoryGenerator.run(dataDirectory: server.dataDirectory, draws: 1, rounds: 1, prefix: "LINK",
                                     hostKey: DrawTestServer.hostKey)
        try server.restart()
        let issued = try HostLink.issue(code: "LINK-0001", dataDirectory: server.dataDirectory)
        // The running server's watch takes the new hash into its index of stored draws within a second or so.
        #expect(waitUntil(timeout: .seconds(20)) { server.service.storedHostKeyHash("LINK-0001") == DrawKeys.hash(issued.key) })
        #expect(server.service.loadedRoomCount == 0)
        #expect(try server.command("start", key: DrawTestServer.hostKey, code: "LINK-0001").errorCode == "bad_key")
        #expect(try server.command("start", key: issued.key, code: "LINK-0001").status == 200)
    }

    @Test func winnersOfADrawNotReadYetAreStillExcluded() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(30))
        defer { server.stop() }
        let names = JSONValue.array((1...5).map { .object(["name": .string("Person \($0)")]) })
        let pool = JSONValue.object(["kind": .string("list"), "entrants": names])
        #expect(try server.command("config", body: JSONValue.object(["pool": pool]).canonicalString).status == 200)
        var first = Set<String>()
        for _ in 0..<2 {
            #expect(try server.command("start").status == 200)
            first.formUnion(try server.command("stop").json["result"]?["winners"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
        #expect(first.count == 2)
        func create() throws -> (code: String, key: String) {
            let created = try server.request("POST", "/api/draws", key: DrawTestServer.adminKey,
                                             body: JSONValue.object(["config": .object(["pool": pool])]).canonicalString)
            return (try #require(created.json["code"]?.stringValue), try #require(created.json["hostKey"]?.stringValue))
        }
        let linkedBefore = try create(), linkedAfter = try create()
        let link = JSONValue.object(["code": .string(DrawTestServer.code), "key": .string(DrawTestServer.hostKey)])
        let config = JSONValue.object(["pool": pool, "excludeWinnersOf": .array([link])]).canonicalString
        #expect(try server.command("config", body: config, key: linkedBefore.key, code: linkedBefore.code).status == 200)
        try server.restart()

        // Linked before the restart: reading it reads the draw it excludes the winners of (each Start
        // resolves their winners again, as after a restart that read every draw).
        #expect(try server.state(code: linkedBefore.code)["config"]?["excludeWinnersOf"] == .array([.string(DrawTestServer.code)]))
        #expect(waitUntil { server.service.loadedRoomCount == 2 })
        var drawn = Set<String>()
        for _ in 0..<3 {
            #expect(try server.command("start", key: linkedBefore.key, code: linkedBefore.code).status == 200)
            drawn.formUnion(try server.command("stop", key: linkedBefore.key, code: linkedBefore.code)
                .json["result"]?["winners"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
        #expect(drawn.count == 3 && drawn.isDisjoint(with: first))
        #expect(try server.command("start", key: linkedBefore.key, code: linkedBefore.code).errorCode == "pool_exhausted")
        #expect(try RoundVerifier.verify(exportText: try server.exportJSON(code: linkedBefore.code)).passed)

        // Linked after the restart, while the other draw is not read: the configure waits for it.
        try server.restart()
        _ = try server.state(code: linkedAfter.code)
        #expect(server.service.loadedRoomCount == 1)
        let linked = try server.command("config", body: config, key: linkedAfter.key, code: linkedAfter.code)
        #expect(linked.status == 200, "\(linked.text)")
        #expect(try server.state(code: linkedAfter.code)["remaining"]?.intValue == 3)
    }
}

/// A running test server's port, to send requests from several threads at once.
private final class FixedPort: DrawEndpoint, Sendable {
    let port: Int

    init(port: Int) {
        self.port = port
    }
}
