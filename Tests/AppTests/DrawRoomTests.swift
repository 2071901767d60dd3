@testable import App
import DrawEngine
import Glibc
import JSON
import Posix
import RoomTestSupport
import Testing
import WebSocketClient
@testable import Server
import TestSupport

extension DrawEndpoint {
    func connect(code: String = DrawTestServer.code) throws -> WebSocketClient {
        try WebSocketClient.connect(host: "127.0.0.1", port: port, path: "/ws/draw/\(code)", timeout: .seconds(5))
    }

    /// A connection that has authenticated as host (its `state` and `role` already read).
    func host(client: String? = nil) throws -> WebSocketClient {
        let socket = try connect()
        _ = try socket.next(type: "state")
        let clientField = client.map { #","client":"\#($0)""# } ?? ""
        try socket.send(text: #"{"type":"auth","key":"\#(DrawTestServer.hostKey)"\#(clientField)}"#)
        let role = try socket.next(type: "role")
        guard role["role"]?.stringValue == "host" else { throw TestFailure("auth failed: \(role.canonicalString)") }
        return socket
    }
}

extension WebSocketClient {
    /// The next text message as JSON (pings and pongs are skipped).
    func nextJSON(timeout: Duration = .seconds(5)) throws -> JSONValue {
        while true {
            switch try receive(timeout: timeout) {
            case .text(let text): return try JSONValue.parse(text)
            case .close(let code, _): throw TestFailure("closed with \(code.map(String.init) ?? "no code")")
            default: continue
            }
        }
    }

    /// The next message of `type`; the ones before it go to `skipped`.
    func next(type: String, skipped: inout [JSONValue], timeout: Duration = .seconds(5)) throws -> JSONValue {
        while true {
            let message = try nextJSON(timeout: timeout)
            if message["type"]?.stringValue == type { return message }
            skipped.append(message)
        }
    }

    func next(type: String, timeout: Duration = .seconds(5)) throws -> JSONValue {
        var skipped = [JSONValue]()
        return try next(type: type, skipped: &skipped, timeout: timeout)
    }

    /// Every message that arrives within `duration`.
    func collect(for duration: Duration) throws -> [JSONValue] {
        let deadline = ContinuousClock.now + duration
        var messages = [JSONValue]()
        while ContinuousClock.now < deadline {
            do {
                guard case .text(let text) = try receive(timeout: deadline - ContinuousClock.now) else { continue }
                messages.append(try JSONValue.parse(text))
            } catch WebSocketClient.ClientError.timedOut {
                break
            }
        }
        return messages
    }

    /// The next message that is not a tick or viewer count.
    func nextEvent(timeout: Duration = .seconds(5)) throws -> JSONValue {
        while true {
            let message = try nextJSON(timeout: timeout)
            if !["tick", "viewers"].contains(message["type"]?.stringValue ?? "") { return message }
        }
    }
}

@Suite("Draw room over WebSocket", .serialized)
struct DrawRoomTests {
    @Test func aPageGetsAStateSnapshotOnJoin() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let page = try server.connect()
        let state = try page.nextJSON()
        #expect(state["type"]?.stringValue == "state")
        #expect(state["code"]?.stringValue == DrawTestServer.code)
        #expect(state["role"]?.stringValue == "viewer")
        #expect(state["phase"]?.stringValue == "idle")
        #expect(state["contributed"] == .null)
        #expect(state["algorithm"]?.stringValue == "tombola-hmac-sha256-v1")
        #expect(state["commit"]?["round"]?.intValue == 1)
        #expect(state["viewers"]?.intValue == 1)
        #expect(state["config"]?["perStop"]?.intValue == 1)
    }

    @Test func anUnknownCodeIsRefusedBeforeTheHandshake() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let request = "GET /ws/draw/NOPE42 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        let response = try WebSocketClient.handshakeResponse(host: "127.0.0.1", port: server.port, request: Array(request.utf8))
        #expect(response.status == 404)
    }

    static let badMessages: [(String, String)] = [
        ("not json", "bad_json"),
        ("[1,2]", "bad_json"),
        (#"{"kind":"start"}"#, "bad_message"),
        (#"{"type":"launch"}"#, "unknown_type"),
        (#"{"type":"hello","entropy":"xyz"}"#, "bad_entropy"),
        (#"{"type":"hello","entropy":"00112233445566778899aabbccddeeff00"}"#, "bad_entropy"),
        (#"{"type":"auth"}"#, "bad_message"),
        (#"{"type":"auth","key":7}"#, "bad_message"),
        (#"{"type":"start","seq":"one"}"#, "bad_message"),
        (#"{"type":"configure","seq":1}"#, "bad_message"),
        (#"{"type":"void","round":1,"winner":5}"#, "bad_message"),
    ]

    @Test(arguments: badMessages)
    func badMessagesGetAnErrorAndChangeNothing(message: String, code: String) throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let host = try server.host()
        try host.send(text: message)
        let error = try host.nextEvent()
        #expect(error["type"]?.stringValue == "error")
        #expect(error["code"]?.stringValue == code)
        #expect(error["message"]?.stringValue?.isEmpty == false)
        let state = try server.state()
        #expect(state["phase"]?.stringValue == "idle")
        #expect(state["config"]?["pool"]?["to"]?.intValue == 500)
    }

    @Test func viewersCannotControlTheDraw() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let viewer = try server.connect()
        _ = try viewer.next(type: "state")
        let commands = [#"{"type":"start","seq":1}"#, #"{"type":"stop"}"#, #"{"type":"clear"}"#,
                        #"{"type":"configure","config":{"pool":{"kind":"range","from":1,"to":9}}}"#,
                        #"{"type":"void","round":1,"winner":3,"reason":"x"}"#]
        for command in commands {
            try viewer.send(text: command)
            let reply = try viewer.nextEvent()
            #expect(reply["code"]?.stringValue == "not_host", "\(command)")
        }
        try viewer.send(text: #"{"type":"auth","key":"guess"}"#)
        #expect(try viewer.nextEvent()["code"]?.stringValue == "bad_key")
        try viewer.send(text: #"{"type":"start"}"#)
        #expect(try viewer.nextEvent()["code"]?.stringValue == "not_host")
        let state = try server.state()
        #expect(state["phase"]?.stringValue == "idle")
        #expect(state["config"]?["pool"]?["to"]?.intValue == 500)
    }

    @Test func wrongKeysOverWebSocketAreRateLimitedAndTheRightKeyWorksAfterAWait() throws {
        // The refill is long enough that no token comes back during the attempts, even on a
        // loaded machine (30 loopback round trips take far less than 2 s).
        let server = try DrawTestServer(authBurst: 5, authRefill: .seconds(2))
        defer { server.stop() }
        let page = try server.connect()
        _ = try page.next(type: "state")
        var codes = [String]()
        for attempt in 0..<30 {
            try page.send(text: #"{"type":"auth","key":"guess-\#(attempt)"}"#)
            codes.append(try page.nextEvent()["code"]?.stringValue ?? "?")
        }
        #expect(codes.prefix(5).allSatisfy { $0 == "bad_key" })
        #expect(codes.dropFirst(5).allSatisfy { $0 == "rate_limited" })
        try page.send(text: #"{"type":"auth","key":"\#(DrawTestServer.hostKey)"}"#)
        #expect(try page.nextEvent()["code"]?.stringValue == "rate_limited")
        // REST shares the limit: the same address is limited there too.
        #expect(try server.command("start").status == 429)
        // Once a token is back the right key works (refused tries with it spend none).
        var role = JSONValue.null
        #expect(try waitUntil(timeout: .seconds(10)) {
            try page.send(text: #"{"type":"auth","key":"\#(DrawTestServer.hostKey)"}"#)
            role = try page.nextEvent()
            return role["type"]?.stringValue == "role" || role["code"]?.stringValue != "rate_limited"
        })
        #expect(role["type"]?.stringValue == "role")
        #expect(role["role"]?.stringValue == "host")
    }

    @Test func aFullRoundTicksSlowsDownAndRevealsAVerifiableResult() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(1500), tickHz: 20)
        defer { server.stop() }
        let viewer = try server.connect()
        _ = try viewer.next(type: "state")
        let entropy = "00112233445566778899aabbccddeeff"
        try viewer.send(text: #"{"type":"hello","entropy":"\#(entropy)"}"#)
        let host = try server.host()
        // hello and auth are on different connections: make sure the hello has been handled
        // (the viewer's messages are handled in order, so the answer to a sync comes after it).
        try viewer.send(text: #"{"type":"sync"}"#)
        _ = try viewer.next(type: "state")

        try host.send(text: #"{"type":"start","seq":1,"audience":"42"}"#)
        var skipped = [JSONValue]()
        let ack = try host.next(type: "ack", skipped: &skipped)
        #expect(ack["seq"]?.intValue == 1)
        #expect(ack["command"]?.stringValue == "start")
        #expect(try viewer.next(type: "phase")["phase"]?.stringValue == "rolling")

        var ticks = [JSONValue]()
        while ticks.count < 8 { ticks.append(try viewer.next(type: "tick")) }
        let stopSent = MonotonicClock.nanoseconds()
        try host.send(text: #"{"type":"stop","seq":2}"#)
        #expect(try host.next(type: "ack")["seq"]?.intValue == 2)
        var rolling = [JSONValue]()
        let stopping = try viewer.next(type: "phase", skipped: &rolling)
        #expect(stopping["phase"]?.stringValue == "stopping")
        ticks += rolling.filter { $0["type"]?.stringValue == "tick" }
        var slowDown = [JSONValue]()
        let result = try viewer.next(type: "result", skipped: &slowDown)
        // Measured from before the stop was sent, so load can only lengthen it: at least the
        // 1.5 s slow-down (less a timer's rounding); the upper bound only catches a stall.
        let elapsed = millisecondsSince(stopSent)
        #expect(elapsed > 1450 && elapsed < 10_000, "slow-down took \(elapsed) ms")
        let slowTicks = slowDown.filter { $0["type"]?.stringValue == "tick" }
        ticks += slowTicks

        // Ticks: increasing seq and server time, values in the pool; the slow-down spaces out and lands on the winner.
        let seqs = ticks.compactMap { $0["seq"]?.intValue }
        #expect(seqs.count == ticks.count && zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 })
        let times = ticks.compactMap { tick -> Double? in
            if case .double(let d)? = tick["at"] { return d }
            return tick["at"]?.intValue.map(Double.init)
        }
        #expect(times.count == ticks.count && zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(abs(times.last! - WallClock.unixMilliseconds()) < 5000)
        #expect(ticks.allSatisfy { (1...500).contains($0["value"]?.intValue ?? 0) })
        #expect(slowTicks.count >= 4)
        let gaps = zip(times.suffix(slowTicks.count), times.suffix(slowTicks.count).dropFirst()).map { $1 - $0 }
        #expect(gaps.last! > gaps.first!, "slow-down gaps \(gaps)")
        let winners = try #require(result["winners"]?.arrayValue)
        #expect(slowTicks.last?["value"] == winners.first)

        #expect(result["round"]?.intValue == 1)
        #expect(result["audience"]?.stringValue == "42")
        #expect(result["contributors"]?.intValue == 1)
        #expect(result["contributions"] == .array([.string(entropy)]))
        #expect(try viewer.next(type: "phase")["phase"]?.stringValue == "revealed")
        let commit = try viewer.next(type: "commit")
        #expect(commit["round"]?.intValue == 2)
        #expect(commit["commitment"] != result["commitment"])

        let export = try server.exportJSON()
        let report = try RoundVerifier.verify(exportText: export)
        #expect(report.passed)
        let stored = try JSONValue.parse(export)["records"]?.arrayValue?.first { $0["kind"]?.stringValue == "round" }
        #expect(stored?["hash"] == result["hash"])

        // A settings change reaches every page as one `config` message and a new pool lock.
        try host.send(text: #"{"type":"configure","seq":3,"config":{"pool":{"kind":"range","from":1,"to":50}}}"#)
        let ackConfigure = try host.next(type: "ack")
        #expect(ackConfigure["duplicates"] == .array([]))
        let config = try viewer.next(type: "config")
        #expect(config["config"]?["pool"]?["to"]?.intValue == 50)
        let firstWinner = winners.first?.intValue ?? 0
        #expect(config["remaining"]?.intValue == (firstWinner <= 50 ? 49 : 50))
        #expect(config["round"]?.intValue == 2)
        let relocked = try viewer.next(type: "commit")
        #expect(relocked["commitment"] == commit["commitment"])
        #expect(relocked["poolHash"] != commit["poolHash"])

        // `sync` answers this page's own snapshot: the viewer's entropy was in the last round, the host's was not.
        try viewer.send(text: #"{"type":"sync"}"#)
        let fresh = try viewer.next(type: "state")
        #expect(fresh["contributed"] == .bool(true))
        #expect(fresh["role"]?.stringValue == "viewer")
        #expect(fresh["phase"]?.stringValue == "revealed")
        #expect(fresh["result"]?["hash"] == result["hash"])
        try host.send(text: #"{"type":"sync"}"#)
        let hostState = try host.next(type: "state")
        #expect(hostState["role"]?.stringValue == "host")
        #expect(hostState["contributed"] == .bool(false))
    }

    @Test func aResentCommandIsAcknowledgedAgainAndAppliedOnce() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let host = try server.host(client: "phone-1")
        try host.send(text: #"{"type":"start","seq":5}"#)
        try host.send(text: #"{"type":"start","seq":5}"#)
        #expect(try host.next(type: "ack")["seq"]?.intValue == 5)
        #expect(try host.next(type: "ack")["seq"]?.intValue == 5)
        // A reconnected page (same client id) resends: still one start.
        let again = try server.host(client: "phone-1")
        try again.send(text: #"{"type":"start","seq":5}"#)
        #expect(try again.next(type: "ack")["seq"]?.intValue == 5)
        // A double start with a new seq is out of turn.
        try again.send(text: #"{"type":"start","seq":6}"#)
        let refused = try again.nextEvent()
        #expect(refused["code"]?.stringValue == "wrong_phase")
        #expect(refused["seq"]?.intValue == 6)
        try again.send(text: #"{"type":"stop","seq":7}"#)
        try again.send(text: #"{"type":"stop","seq":7}"#)
        #expect(try again.next(type: "ack")["seq"]?.intValue == 7)
        #expect(try again.next(type: "ack")["seq"]?.intValue == 7)
        _ = try again.next(type: "result")
        // A double tap without seq: the second start or stop is out of turn, never applied twice.
        try again.send(text: #"{"type":"start"}"#)
        try again.send(text: #"{"type":"start"}"#)
        #expect(try again.next(type: "ack")["command"]?.stringValue == "start")
        #expect(try again.next(type: "error")["code"]?.stringValue == "wrong_phase")
        try again.send(text: #"{"type":"stop"}"#)
        try again.send(text: #"{"type":"stop"}"#)
        #expect(try again.next(type: "ack")["command"]?.stringValue == "stop")
        #expect(try again.next(type: "error")["code"]?.stringValue == "wrong_phase")
        _ = try again.next(type: "result")
        let report = try RoundVerifier.verify(exportText: try server.exportJSON())
        #expect(report.roundCount == 2)
    }

    @Test func anOversizeMessageClosesWith1009AndChangesNothing() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let host = try server.host()
        let names = (0..<120_000).map { "entrant-number-\($0)" }.joined(separator: "\\n")
        try host.send(text: #"{"type":"configure","seq":1,"config":{"pool":{"kind":"list","text":"\#(names)"}}}"#)
        var code: UInt16? = nil
        while true {
            guard case .close(let closeCode, _) = try host.receive() else { continue }
            code = closeCode
            break
        }
        #expect(code == 1009)
        #expect(try server.state()["config"]?["pool"]?["kind"]?.stringValue == "range")
    }

    @Test func aLargeEntrantListFitsInOneMessage() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let host = try server.host()
        let names = (0..<100_000).map { "n\($0)" }.joined(separator: "\\n")
        try host.send(text: #"{"type":"configure","seq":1,"config":{"pool":{"kind":"list","text":"\#(names)"}}}"#)
        let ack = try host.next(type: "ack", timeout: .seconds(30))
        #expect(ack["command"]?.stringValue == "configure")
        let state = try server.state()
        #expect(state["remaining"]?.intValue == 100_000)
        #expect(state["config"]?["pool"]?["count"]?.intValue == 100_000)
        let settings = try server.request("GET", "/api/draws/\(DrawTestServer.code)/config")
        #expect(settings.status == 200)
        #expect(settings.json["pool"]?["entrants"]?.arrayValue?.count == 100_000)
    }

    @Test func theViewerCountIsBroadcastWhenItChanges() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let first = try server.connect()
        _ = try first.next(type: "state")
        let second = try server.connect()
        _ = try second.next(type: "state")
        var count: Int64 = 0
        let deadline = MonotonicClock.nanoseconds() + 3_000_000_000
        while count != 2 && MonotonicClock.nanoseconds() < deadline {
            count = try first.next(type: "viewers", timeout: .seconds(3))["count"]?.intValue ?? 0
        }
        #expect(count == 2)
    }

    @Test func twoHundredViewersEachGetEveryResultAndTicksInOrder() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(300))
        defer { server.stop() }
        var viewers = [WebSocketClient]()
        for _ in 0..<200 {
            let viewer = try server.connect()
            viewers.append(viewer)
        }
        for viewer in viewers { _ = try viewer.next(type: "state") }
        var results = [JSONValue]()
        for _ in 0..<2 {
            #expect(try server.command("start").status == 200)
            usleep(200_000)  // the subject: the round rolls for a while, so viewers get ticks
            let stop = try server.command("stop")
            results.append(try #require(stop.json["result"]))
        }
        for (index, viewer) in viewers.enumerated() {
            var seen = [JSONValue]()
            for expected in results {
                var before = [JSONValue]()
                let result = try viewer.next(type: "result", skipped: &before)
                #expect(result["hash"] == expected["hash"], "viewer \(index)")
                seen += before
            }
            let seqs = seen.filter { $0["type"]?.stringValue == "tick" }.compactMap { $0["seq"]?.intValue }
            #expect(!seqs.isEmpty, "viewer \(index) saw no ticks")
            #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }, "viewer \(index)")
        }
    }

    @Test func aRestartWhileARoundRollsCarriesItOnToTheWinnersItsLockDetermined() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(100))
        defer { server.stop() }
        var winners = [JSONValue]()
        for _ in 0..<3 {
            #expect(try server.command("start").status == 200)
            winners.append(try #require(try server.command("stop").json["result"]?["winners"]))
        }
        #expect(try server.command("start").status == 200)
        let before = try server.state()
        #expect(before["phase"]?.stringValue == "rolling")
        try server.restart()
        let after = try server.state()
        // No re-roll by crash (issue #40): round 4 rolls on, on the commitment and the lock its Start
        // stored (no new commitment), the earlier rounds kept; every page hears it was resumed.
        #expect(after["phase"]?.stringValue == "rolling")
        #expect(after["rounds"]?.arrayValue?.map { $0["winners"]! } == winners)
        #expect(after["commit"] == before["commit"])
        #expect(after["interrupted"] == .null)
        #expect(after["resumed"] == .object(["round": .int(4)]))
        let page = try server.connect()
        let snapshot = try page.next(type: "state")
        #expect(snapshot["resumed"] == .object(["round": .int(4)]) && snapshot["phase"]?.stringValue == "rolling")
        let result = try #require(try server.command("stop").json["result"])
        #expect(result["round"]?.intValue == 4 && result["commitment"] == before["commit"]?["commitment"])
        // The round drawn is the one the lock stored before the restart fixed: the export verifies,
        // and nothing was abandoned.
        let report = try RoundVerifier.verify(exportText: try server.exportJSON())
        #expect(report.passed)
        #expect(!report.checks.contains { $0.notes.contains { $0.contains("lock of round") } })
        // A restart after a stopped round resumes nothing and interrupts nothing.
        try server.restart()
        let idle = try server.state()
        #expect(idle["interrupted"] == .null && idle["resumed"] == nil && idle["phase"]?.stringValue == "revealed")
        #expect(try server.command("start").status == 200)
        #expect(try server.state()["resumed"] == nil)
    }

    @Test func aRollingRoundIsAbandonedOnTheRecordOnlyWhenItsSealedSeedIsLost() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(100))
        defer { server.stop() }
        #expect(try server.command("start").status == 200)
        let first = try #require(try server.command("stop").json["result"]?["winners"])
        #expect(try server.command("start").status == 200)
        let before = try server.state()
        // The data itself is lost (the key that opens the sealed seed): the round cannot roll on.
        try server.restart { #expect(unlink(server.dataDirectory + "/seed.key") == 0) }
        let after = try server.state()
        #expect(after["phase"]?.stringValue == "revealed" && after["result"]?["winners"] == first)
        #expect(after["interrupted"] == .object(["round": .int(2)]) && after["resumed"] == nil)
        #expect(after["commit"]?["commitment"] != before["commit"]?["commitment"])
        let report = try RoundVerifier.verify(exportText: try server.exportJSON())
        #expect(report.passed)
        #expect(report.checks.contains { $0.notes.contains { $0.hasPrefix("WARNING: lock of round 2 abandoned") } })
        #expect(try server.command("start").status == 200)
        #expect(try server.state()["interrupted"] == .null)
        #expect(try server.command("stop").json["result"]?["round"]?.intValue == 2)
    }

    @Test func voidAndClearAreBroadcastToEveryPage() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(100))
        defer { server.stop() }
        let viewer = try server.connect()
        _ = try viewer.next(type: "state")
        let host = try server.host()
        try host.send(text: #"{"type":"start","seq":1}"#)
        try host.send(text: #"{"type":"stop","seq":2}"#)
        #expect(try host.next(type: "ack")["seq"]?.intValue == 1)
        #expect(try host.next(type: "ack")["seq"]?.intValue == 2)
        let result = try viewer.next(type: "result")
        let winner = try #require(result["winners"]?.arrayValue?.first)
        _ = try viewer.next(type: "commit")

        try host.send(text: #"{"type":"void","seq":3,"round":1,"winner":\#(winner.canonicalString),"reason":"no-show"}"#)
        #expect(try host.next(type: "ack")["command"]?.stringValue == "void")
        // Every page hears why, before the replacement's result.
        #expect(try viewer.next(type: "void") == .object(["type": .string("void"), "round": .int(1), "winner": winner,
                                                           "reason": .string("no-show")]))
        let replacement = try viewer.next(type: "result")
        #expect(replacement["round"]?.intValue == 1)
        #expect(replacement["replaces"]?["winner"] == winner)
        let next = try viewer.next(type: "commit")
        #expect(next["round"]?.intValue == 2)
        #expect(next["commitment"] != replacement["commitment"])

        try host.send(text: #"{"type":"clear","seq":4}"#)
        #expect(try viewer.nextEvent()["type"]?.stringValue == "cleared")
        #expect(try viewer.nextEvent() == .object(["type": .string("phase"), "phase": .string("idle")]))
        let afterClear = try viewer.next(type: "commit")
        #expect(afterClear["commitment"] == next["commitment"] && afterClear["remaining"]?.intValue == 500)
        #expect(afterClear["plan"]?["round"]?.intValue == 2)
        try viewer.send(text: #"{"type":"sync"}"#)
        let state = try viewer.next(type: "state")
        #expect(state["rounds"] == .array([]))
        #expect(state["result"] == .null)
        #expect(try RoundVerifier.verify(exportText: try server.exportJSON()).passed)
    }

    @Test func aStorageFailureTellsTheHostAndAnnouncesNothing() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let viewer = try server.connect()
        _ = try viewer.next(type: "state")
        let host = try server.host()
        try host.send(text: #"{"type":"start","seq":1}"#)
        _ = try host.next(type: "ack")
        server.service.storage.close()
        try host.send(text: #"{"type":"stop","seq":2}"#)
        var before = [JSONValue]()
        let error = try host.next(type: "error", skipped: &before)
        #expect(before.allSatisfy { ["tick", "phase", "lock"].contains($0["type"]?.stringValue ?? "") && $0["phase"]?.stringValue != "stopping" })
        #expect(error["code"]?.stringValue == "storage_failed")
        #expect(error["seq"]?.intValue == 2)
        // The viewer saw the lock Start stored, then rolling, and keeps seeing ticks; no stopping, no result.
        #expect(try viewer.nextEvent()["type"]?.stringValue == "lock")
        #expect(try viewer.nextEvent()["phase"]?.stringValue == "rolling")
        let later = try viewer.collect(for: .milliseconds(600))
        #expect(!later.isEmpty)
        #expect(later.allSatisfy { $0["type"]?.stringValue == "tick" })
        #expect(try server.state()["phase"]?.stringValue == "rolling")
    }
}

