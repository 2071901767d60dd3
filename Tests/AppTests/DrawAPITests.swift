import DrawEngine
import Glibc
import Posix
import Testing
@testable import App
@testable import Server
import TestSupport

@Suite("Draw REST API", .serialized)
struct DrawAPITests {
    @Test func infoNamesTheDefaultDrawAndTheLANAddress() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let info = try server.request("GET", "/api/info")
        #expect(info.status == 200)
        #expect(info.json["defaultDraw"]?.stringValue == DrawTestServer.code)
        #expect(info.json["lanUrl"]?.stringValue == "http://127.0.0.1:\(server.port)")
        #expect(info.json["version"]?.stringValue?.isEmpty == false)
    }

    @Test func publicStateShowsAnIdleDrawWithACommitmentAndNoSecrets() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let response = try server.request("GET", "/api/draws/\(DrawTestServer.code)")
        #expect(response.status == 200)
        let state = response.json
        #expect(state["phase"]?.stringValue == "idle")
        #expect(state["role"]?.stringValue == "viewer")
        #expect(state["round"]?.intValue == 1)
        #expect(state["remaining"]?.intValue == 500)
        #expect(state["commit"]?["commitment"]?.stringValue?.utf8.count == 64)
        #expect(state["config"]?["pool"]?["to"]?.intValue == 500)
        #expect(!response.text.contains(DrawTestServer.hostKey))
        #expect(!response.text.contains("seed"))
    }

    @Test func unknownDrawsAndPathsAre404WithAJSONError() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let unknown = try server.request("GET", "/api/draws/NOPE42")
        #expect(unknown.status == 404)
        #expect(unknown.errorCode == "unknown_draw")
        let path = try server.request("GET", "/api/draws/\(DrawTestServer.code)/nothing")
        #expect(path.status == 404)
        #expect(path.errorCode == "not_found")
        let method = try server.request("GET", "/api/draws/\(DrawTestServer.code)/start")
        #expect(method.status == 405)
        #expect(method.headers["Allow"] == "POST")
    }

    @Test func controlNeedsTheHostKey() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let missing = try server.request("POST", "/api/draws/\(DrawTestServer.code)/start")
        #expect(missing.status == 401)
        #expect(missing.errorCode == "unauthorized")
        #expect(missing.headers["WWW-Authenticate"] == "Bearer")
        let wrong = try server.command("start", key: "not-the-key")
        #expect(wrong.status == 403)
        #expect(wrong.errorCode == "bad_key")
        let admin = try server.command("start", key: DrawTestServer.adminKey)
        #expect(admin.status == 403)
        #expect(try server.state()["phase"]?.stringValue == "idle")
    }

    @Test func aRoundOverRESTIsStoredRevealedAndVerifiable() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(300))
        defer { server.stop() }
        let start = try server.command("start", body: #"{"audience":"4711"}"#)
        #expect(start.status == 200)
        #expect(start.json["ok"]?.boolValue == true)
        #expect(try server.state()["phase"]?.stringValue == "rolling")
        let began = MonotonicClock.nanoseconds()
        let stop = try server.command("stop")
        #expect(stop.status == 200)
        #expect(millisecondsSince(began) >= 250)
        let result = try #require(stop.json["result"])
        #expect(result["type"]?.stringValue == "result")
        #expect(result["round"]?.intValue == 1)
        #expect(result["audience"]?.stringValue == "4711")
        let winner = try #require(result["winners"]?.arrayValue?.first?.intValue)
        #expect((1...500).contains(winner))

        let state = try server.state()
        #expect(state["phase"]?.stringValue == "revealed")
        #expect(state["round"]?.intValue == 2)
        #expect(state["rounds"]?.arrayValue?.first?["winners"] == .array([.int(winner)]))
        #expect(state["result"]?["hash"] == result["hash"])
        #expect(state["commit"]?["commitment"] != result["commitment"])

        let report = try RoundVerifier.verify(exportText: try server.exportJSON())
        #expect(report.passed)
        #expect(report.roundCount == 1)
        let metrics = try server.request("GET", "/metrics").text
        #expect(metrics.contains("tombola_draw_rounds_total 1\n"))
        #expect(metrics.contains("tombola_draw_rooms 1"))
        let csv = try server.request("GET", "/api/draws/\(DrawTestServer.code)/export.csv")
        #expect(csv.status == 200)
        #expect(csv.headers["Content-Type"]?.hasPrefix("text/csv") == true)
        let lines = csv.text.split(separator: "\r\n")
        // A byte order mark first: Excel reads UTF-8 (Chinese names) only then.
        #expect(lines.first == "\u{FEFF}session,round,prize,winner,voided,reason,replaces,at,record,commitment,seed,hash,name")
        #expect(lines.count == 2)
        #expect(lines.last?.hasPrefix("1,1,,\(winner),no,,,") == true)
    }

    @Test func commandsOutOfTurnAreWrongPhaseAndChangeNothing() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let early = try server.command("stop")
        #expect(early.status == 409)
        #expect(early.errorCode == "wrong_phase")
        #expect(try server.command("start").status == 200)
        let again = try server.command("start")
        #expect(again.status == 409)
        #expect(again.errorCode == "wrong_phase")
        let configure = try server.command("config", body: #"{"pool":{"kind":"range","from":1,"to":10}}"#)
        #expect(configure.errorCode == "wrong_phase")
        let clear = try server.command("clear")
        #expect(clear.errorCode == "wrong_phase")
        #expect(try server.command("stop").status == 200)
        let report = try RoundVerifier.verify(exportText: try server.exportJSON())
        #expect(report.roundCount == 1)
    }

    @Test func aResentSequenceNumberIsAcknowledgedButNotAppliedTwice() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let first = try server.command("start", body: #"{"seq":7}"#)
        #expect(first.status == 200)
        #expect(first.json["seq"]?.intValue == 7)
        let resent = try server.command("start", body: #"{"seq":7}"#)
        #expect(resent.status == 200)
        #expect(resent.json["seq"]?.intValue == 7)
        #expect(try server.command("stop", body: #"{"seq":8}"#).status == 200)
        let stopAgain = try server.command("stop", body: #"{"seq":8}"#)
        #expect(stopAgain.status == 200)
        // A new seq is a new command: stop while revealed is out of turn.
        #expect(try server.command("stop", body: #"{"seq":9}"#).errorCode == "wrong_phase")
        let report = try RoundVerifier.verify(exportText: try server.exportJSON())
        #expect(report.roundCount == 1)
        #expect(try server.state()["phase"]?.stringValue == "revealed")
    }

    static let badSettings: [(String, String)] = [
        (#"{"pool":{"kind":"range","from":5,"to":1}}"#, "invalid_range"),
        (#"{"pool":{"kind":"range","from":1,"to":1}}"#, "pool_too_small"),
        (#"{"pool":{"kind":"range","from":1,"to":1000000000001}}"#, "pool_too_large"),
        (#"{"pool":{"kind":"list","entrants":["Ann"]}}"#, "pool_too_small"),
        (#"{"pool":{"kind":"list","entrants":["Ann","B\u0001b"]}}"#, "bad_entrant"),
        (#"{"exclude":[501]}"#, "bad_exclusion"),
        (#"{"pool":{"kind":"range","from":1,"to":2},"exclude":[1,2]}"#, "all_excluded"),
        (#"{"perStop":0}"#, "bad_per_stop"),
        (#"{"prizes":[{"name":"","count":1}]}"#, "bad_prize"),
        (#"{"prizes":[{"name":"First","count":1}],"prize":3}"#, "bad_prize"),
        (#"{"pool":{"kind":"dice"}}"#, "bad_message"),
        (#"{"perStop":"some"}"#, "bad_message"),
        (#"[1,2]"#, "bad_json"),
        (#"{"pool":"#, "bad_json"),
    ]

    @Test(arguments: badSettings)
    func badSettingsAreRefusedWithTheirCodeAndNothingChanges(body: String, code: String) throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let before = try server.state()
        let response = try server.command("config", body: body)
        #expect(response.status == 400)
        #expect(response.errorCode == code)
        #expect(response.json["error"]?["message"]?.stringValue?.isEmpty == false)
        let after = try server.state()
        #expect(after["config"] == before["config"])
        #expect(after["commit"] == before["commit"])
    }

    @Test func configureRelocksThePoolAndReportsDuplicateNames() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let before = try server.state()
        let response = try server.command("config", body: #"{"pool":{"kind":"list","text":"Ann\nBob\nAnn\n李雷"},"perStop":2}"#)
        #expect(response.status == 200)
        #expect(response.json["duplicates"] == .array([.string("Ann")]))
        let after = try server.state()
        #expect(after["config"]?["pool"]?["count"]?.intValue == 3)
        let settings = try server.request("GET", "/api/draws/\(DrawTestServer.code)/config")
        #expect(settings.json["pool"]?["entrants"] == .array([.string("Ann"), .string("Bob"), .string("李雷")]))
        #expect(after["remaining"]?.intValue == 3)
        #expect(after["commit"]?["commitment"] == before["commit"]?["commitment"])
        #expect(after["commit"]?["poolHash"] != before["commit"]?["poolHash"])
        #expect(try server.command("start").status == 200)
        let stop = try server.command("stop")
        #expect(stop.json["result"]?["winners"]?.arrayValue?.count == 2)
        #expect(try RoundVerifier.verify(exportText: try server.exportJSON()).passed)
    }

    @Test func voidDrawsAReplacementAndClearKeepsTheArchive() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        #expect(try server.command("start").status == 200)
        let stop = try server.command("stop")
        let winner = try #require(stop.json["result"]?["winners"]?.arrayValue?.first)
        let badReason = try server.command("void", body: #"{"round":1,"winner":\#(winner.canonicalString),"reason":""}"#)
        #expect(badReason.errorCode == "bad_reason")
        let unknown = try server.command("void", body: #"{"round":9,"winner":1,"reason":"no-show"}"#)
        #expect(unknown.errorCode == "unknown_round")
        let void = try server.command("void", body: #"{"round":1,"winner":\#(winner.canonicalString),"reason":"no-show"}"#)
        #expect(void.status == 200)
        let replacement = try #require(void.json["result"])
        #expect(replacement["replaces"]?["winner"] == winner)
        #expect(replacement["winners"]?.arrayValue?.first != winner)
        let again = try server.command("void", body: #"{"round":1,"winner":\#(winner.canonicalString),"reason":"no-show"}"#)
        #expect(again.errorCode == "already_voided")
        let board = try server.state()["rounds"]?.arrayValue?.first
        #expect(board?["voided"]?.arrayValue?.first?["winner"] == winner)

        #expect(try server.command("clear").status == 200)
        let cleared = try server.state()
        #expect(cleared["rounds"] == .array([]))
        #expect(cleared["phase"]?.stringValue == "idle")
        #expect(cleared["round"]?.intValue == 2)
        let report = try RoundVerifier.verify(exportText: try server.exportJSON())
        #expect(report.passed)
        #expect(report.roundCount == 2)
        let csv = try server.request("GET", "/api/draws/\(DrawTestServer.code)/export.csv").text
        #expect(csv.contains(",yes,no-show,"))
    }

    @Test func theAdminKeyCreatesDrawsWithTheirOwnHostKey() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        #expect(try server.request("POST", "/api/draws", key: "wrong").status == 403)
        #expect(try server.request("POST", "/api/draws", key: DrawTestServer.hostKey).status == 403)
        let bad = try server.request("POST", "/api/draws", key: DrawTestServer.adminKey, body: #"{"config":{"perStop":0}}"#)
        #expect(bad.errorCode == "bad_per_stop")
        let created = try server.request("POST", "/api/draws", key: DrawTestServer.adminKey,
                                         body: #"{"config":{"pool":{"kind":"range","from":10,"to":20}}}"#)
        #expect(created.status == 201)
        let code = try #require(created.json["code"]?.stringValue)
        let key = try #require(created.json["hostKey"]?.stringValue)
        #expect(code.utf8.count == 6 && code.allSatisfy { "23456789ABCDEFGHJKMNPQRSTUVWXYZ".contains($0) })
        #expect(key.utf8.count == 26)
        #expect(created.json["hostUrl"]?.stringValue == "http://127.0.0.1:\(server.port)/draw/\(code)#key=\(key)")
        #expect(created.json["screenUrl"]?.stringValue == "http://127.0.0.1:\(server.port)/screen/\(code)")
        #expect(created.json["watchUrl"]?.stringValue == "http://127.0.0.1:\(server.port)/watch/\(code)")
        #expect(try server.state(code: code)["remaining"]?.intValue == 11)
        #expect(try server.command("start", key: DrawTestServer.hostKey, code: code).errorCode == "bad_key")
        #expect(try server.command("start", key: key, code: code).status == 200)
        let stop = try server.command("stop", key: key, code: code)
        let winner = try #require(stop.json["result"]?["winners"]?.arrayValue?.first?.intValue)
        #expect((10...20).contains(winner))
        try server.restart()
        #expect(try server.state(code: code)["rounds"]?.arrayValue?.count == 1)
    }

    @Test func qrCodesAreSVGAndBadTextIs400() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let qr = try server.request("GET", "/api/qr?text=http%3A%2F%2F192.168.1.2%3A8080%2Fwatch%2FK7QX2M")
        #expect(qr.status == 200)
        #expect(qr.headers["Content-Type"] == "image/svg+xml")
        #expect(qr.text.hasPrefix("<svg"))
        #expect(try server.request("GET", "/api/qr").errorCode == "bad_text")
        let long = String(repeating: "a", count: 600)
        #expect(try server.request("GET", "/api/qr?text=\(long)").status == 400)
    }

    @Test func wrongKeysAreRateLimitedPerAddressAndTheRightKeyWorksAfterAWait() throws {
        // The refill is long enough that no token comes back during the attempts, even in a
        // sanitizer build on a loaded machine (30 loopback requests take far less than 2 s).
        let server = try DrawTestServer(authBurst: 5, authRefill: .seconds(2))
        defer { server.stop() }
        var statuses = [Int]()
        for attempt in 0..<30 { statuses.append(try server.command("start", key: "guess-\(attempt)").status) }
        #expect(statuses.prefix(5).allSatisfy { $0 == 403 })
        #expect(statuses.dropFirst(5).allSatisfy { $0 == 429 })
        let limited = try server.command("start")
        #expect(limited.status == 429)
        #expect(limited.errorCode == "rate_limited")
        #expect(Int(limited.headers["Retry-After"] ?? "") ?? 0 >= 1)
        // Once a token is back the right key works (refused tries with it spend none).
        var status = 429
        #expect(try waitUntil(timeout: .seconds(10)) {
            status = try server.command("start").status
            return status != 429
        })
        #expect(status == 200)
    }

    @Test func malformedBodiesAreRefused() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        #expect(try server.command("start", body: "not json").errorCode == "bad_json")
        #expect(try server.command("start", body: #"{"audience":"12a"}"#).errorCode == "bad_audience")
        #expect(try server.command("start", body: #"{"seq":-1}"#).errorCode == "bad_message")
        #expect(try server.command("void", body: #"{"round":"one"}"#).errorCode == "bad_message")
        // Over 1 MiB on a command (pool uploads by the host may be larger: PoolUploadAPITests).
        let huge = try server.command("start", body: String(repeating: " ", count: 1_100_000))
        #expect(huge.status == 413)
        #expect(try server.state()["phase"]?.stringValue == "idle")
    }

    @Test func aStorageFailureIsReportedAndNothingIsAnnounced() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        #expect(try server.command("start").status == 200)
        server.service.storage.close()
        let stop = try server.command("stop")
        #expect(stop.status == 503)
        #expect(stop.errorCode == "storage_failed")
        let state = try server.state()
        #expect(state["phase"]?.stringValue == "rolling")
        #expect(state["rounds"] == .array([]))
        #expect(state["result"] == .null)
    }

    @Test func anExhaustedPoolAndFinishedPrizesRefuseStart() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(50))
        defer { server.stop() }
        #expect(try server.command("config", body: #"{"pool":{"kind":"range","from":1,"to":3},"perStop":2}"#).status == 200)
        #expect(try server.command("start").status == 200)
        #expect(try server.command("stop").json["result"]?["winners"]?.arrayValue?.count == 2)
        #expect(try server.command("start").status == 200)
        #expect(try server.command("stop").json["result"]?["winners"]?.arrayValue?.count == 1)
        let exhausted = try server.command("start")
        #expect(exhausted.status == 409)
        #expect(exhausted.errorCode == "pool_exhausted")
        #expect(try server.state()["exhausted"] == .bool(true))

        #expect(try server.command("clear").status == 200)
        #expect(try server.command("config", body: #"{"prizes":[{"name":"Grand","count":1}]}"#).status == 200)
        #expect(try server.command("start").status == 200)
        #expect(try server.command("stop").json["result"]?["prize"]?.stringValue == "Grand")
        let done = try server.command("start")
        #expect(done.status == 409)
        #expect(done.errorCode == "prizes_done")
        #expect(try RoundVerifier.verify(exportText: try server.exportJSON()).passed)
    }

    @Test func theDefaultDrawKeepsOnlyItsKeyHashAndAGivenKeyReplacesIt() throws {
        let data = try makeTemporaryDirectory()
        defer { removeTree(data) }
        var configuration = AppConfiguration(host: "127.0.0.1", port: 0, dataDirectory: data, adminKey: "admin")
        let first = try DrawService.open(configuration: configuration)
        let generated = try #require(first.defaultDraw.hostKey)
        #expect(first.defaultDraw.created)
        let code = first.defaultDraw.code
        #expect(code.count == 6)
        #expect(first.room(code)?.isHostKey(generated) == true)
        first.shutdown()

        let second = try DrawService.open(configuration: configuration)
        #expect(second.defaultDraw.code == code)
        #expect(second.defaultDraw.hostKey == nil)
        #expect(!second.defaultDraw.created && !second.defaultDraw.keyReset)
        #expect(second.room(code)?.isHostKey(generated) == true)
        #expect(second.room(code.lowercased()) != nil)
        second.shutdown()

        configuration.hostKey = "a-new-host-key"
        let third = try DrawService.open(configuration: configuration)
        #expect(third.defaultDraw.keyReset)
        #expect(third.room(code)?.isHostKey("a-new-host-key") == true)
        #expect(third.room(code)?.isHostKey(generated) == false)
        third.shutdown()

        configuration.defaultDrawCode = "bad code!"
        #expect(throws: DrawServiceError.self) { try DrawService.open(configuration: configuration) }
    }
}

