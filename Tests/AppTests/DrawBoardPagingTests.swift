@testable import App
@testable import DrawRoomCore
import DrawEngine
import JSON
import Testing
import TestSupport

/// The board is bounded in `state` and paged over REST (issue #18): a join costs a few
/// kilobytes whatever the rounds hold, and every winner is still one request away.
@Suite("The board over REST", .serialized)
struct DrawBoardAPITests {
    static func winnersPath(_ round: String, _ query: String = "") -> String {
        "/api/draws/\(DrawTestServer.code)/rounds/\(round)/winners" + (query.isEmpty ? "" : "?" + query)
    }

    /// The state without the parts that change by themselves (viewers, the tick).
    static func settled(_ state: JSONValue) -> JSONValue {
        guard case .object(var members) = state else { return state }
        members["viewers"] = nil
        return .object(members)
    }

    @Test func theWinnersEndpointPagesARoundAndRefusesBadParametersChangingNothing() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(50))
        defer { server.stop() }
        let names = (0..<3_000).map { "Guest \($0)" }.joined(separator: "\\n")
        #expect(try server.command("config", body: #"{"pool":{"kind":"list","text":"\#(names)"},"perStop":1000}"#).status == 200)
        var results = [[JSONValue]]()
        for _ in 0..<2 {
            #expect(try server.command("start").status == 200)
            let stop = try server.command("stop")
            #expect(stop.status == 200)
            results.append(try #require(stop.json["result"]?["winners"]?.arrayValue))
        }
        #expect(results.allSatisfy { $0.count == 1_000 })

        var collected = [JSONValue]()
        var offset = 0
        while offset < 1_000 {
            let page = try server.request("GET", Self.winnersPath("2", "offset=\(offset)&limit=300"))
            #expect(page.status == 200)
            #expect(page.json["round"]?.intValue == 2)
            #expect(page.json["total"]?.intValue == 1_000)
            #expect(page.json["offset"]?.intValue == Int64(offset))
            #expect(page.json["limit"]?.intValue == 300)
            let winners = try #require(page.json["winners"]?.arrayValue)
            #expect(!winners.isEmpty)
            collected += winners
            offset += winners.count
        }
        #expect(collected == results[1])
        #expect(Set(collected.compactMap(\.stringValue)).count == 1_000)
        // The default page is the first 200; a page past the end is empty.
        let standard = try server.request("GET", Self.winnersPath("1"))
        #expect(standard.json["winners"]?.arrayValue == Array(results[0].prefix(200)))
        #expect(try server.request("GET", Self.winnersPath("1", "offset=1000")).json["winners"] == .array([]))

        // Validated by ETag while the round does not change.
        let tag = try #require(standard.headers["ETag"])
        let again = try server.request("GET", Self.winnersPath("1"), headers: ["If-None-Match: \(tag)"])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(standard.headers["Cache-Control"] == "no-cache")

        // The rounds' summaries, newest first.
        let rounds = try server.request("GET", "/api/draws/\(DrawTestServer.code)/rounds")
        #expect(rounds.status == 200)
        #expect(rounds.json["total"]?.intValue == 2)
        #expect(rounds.json["rounds"]?.arrayValue?.map { $0["round"]?.intValue } == [2, 1])
        #expect(rounds.json["rounds"]?.arrayValue?.first?["winnerCount"]?.intValue == 1_000)

        let before = Self.settled(try server.state())
        let exportBefore = try server.exportJSON()
        for query in ["offset=-1", "offset=abc", "offset=1.5", "offset=", "limit=0", "limit=1001", "limit=-5", "limit=%2B5",
                      "offset=99999999999", "limit=20&offset=x"] {
            let refused = try server.request("GET", Self.winnersPath("1", query))
            #expect(refused.status == 400, "\(query)")
            #expect(refused.errorCode == "bad_page", "\(query)")
        }
        #expect(try server.request("GET", "/api/draws/\(DrawTestServer.code)/rounds?limit=201").errorCode == "bad_page")
        for round in ["3", "0", "abc", "-1", "99999999999"] {
            let unknown = try server.request("GET", Self.winnersPath(round))
            #expect(unknown.status == 404, "\(round)")
            #expect(unknown.errorCode == "unknown_round", "\(round)")
        }
        #expect(try server.request("GET", "/api/draws/NOSUCH/rounds/1/winners").errorCode == "unknown_draw")
        #expect(try server.request("GET", "/api/draws/\(DrawTestServer.code)/rounds/1/losers").status == 404)
        #expect(try server.request("POST", Self.winnersPath("1"), body: "").status == 405)
        #expect(try server.request("GET", Self.winnersPath("1"), key: "wrong key").status == 403)
        #expect(Self.settled(try server.state()) == before)
        #expect(try server.exportJSON() == exportBefore)

        // A Clear empties the board: its rounds are no longer pages (the export keeps them).
        #expect(try server.command("clear").status == 200)
        #expect(try server.request("GET", Self.winnersPath("1")).status == 404)
        #expect(try server.request("GET", "/api/draws/\(DrawTestServer.code)/rounds").json["total"]?.intValue == 0)
    }
}
