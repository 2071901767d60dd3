import JSON
import DrawEngine
import Testing
@testable import App
import TestSupport

/// `POST /api/draws/<code>/import` on a real server: the preview, its errors, and a round drawn
/// from the previewed entrants that `tombola verify`'s checker accepts.
@Suite struct EntrantImportAPITests {
    @Test func aPreviewedSpreadsheetBecomesAWeightedDrawThatVerifies() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(50))
        defer { server.stop() }
        let path = "/api/draws/\(DrawTestServer.code)/import"
        let csv = "\u{FEFF}Name,Tickets,Group\r\nAnn,3,IT\r\nBob,1,Sales\r\n\"Cleo, Jr.\",5,IT\r\nAnn,2,IT\r\nDai,x,IT\r\n"

        #expect(try server.request("POST", path, body: csv).errorCode == "unauthorized")
        let before = try server.exportJSON()
        let preview = try server.request("POST", path, key: DrawTestServer.hostKey, body: csv, headers: ["Content-Type: text/csv"])
        #expect(preview.status == 200)
        let json = preview.json
        #expect(json["separator"] == .string("comma") && json["count"] == .int(3) && json["tickets"] == .int(9))
        #expect(json["rejected"] == .array([.object(["line": .int(5), "reason": .string("duplicate_name")]),
                                           .object(["line": .int(6), "reason": .string("bad_tickets")])]))
        #expect(json["duplicates"]?.arrayValue?.first?["name"] == .string("Ann"))
        #expect(try server.exportJSON() == before, "a preview saves nothing")

        let merged = try server.request("POST", path + "?duplicates=merge", key: DrawTestServer.hostKey, body: csv)
        #expect(merged.json["tickets"] == .int(11))
        let entrants = merged.json["entrants"]!
        let config = JSONValue.object([
            "pool": .object(["kind": .string("list"), "entrants": entrants]), "perStop": .int(2),
            "prizes": .array([.object(["name": .string("IT"), "count": .int(2), "onlyGroups": .array([.string("IT")])])]),
        ])
        #expect(try server.command("config", body: config.canonicalString).status == 200)
        #expect(try server.command("start").status == 200)
        let winners = try server.command("stop").json["result"]?["winners"]
        #expect(Set(winners?.arrayValue?.compactMap(\.stringValue) ?? []) == ["Ann", "Cleo, Jr."])
        let report = try RoundVerifier.verify(exportText: server.exportJSON())
        #expect(report.passed && report.algorithms == [Fairness.weightedAlgorithm])
    }

    @Test func badImportsGetTheirCodeAndLine() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(50))
        defer { server.stop() }
        let path = "/api/draws/\(DrawTestServer.code)/import"
        let open = try server.request("POST", path, key: DrawTestServer.hostKey, body: "name\nAnn\n\"Bob\n")
        #expect(open.status == 400 && open.errorCode == "import_unterminated_quote" && open.json["error"]?["line"] == .int(3))
        let empty = try server.request("POST", path, key: DrawTestServer.hostKey, body: "")
        #expect(empty.errorCode == "import_empty")
        let policy = try server.request("POST", path + "?duplicates=sum", key: DrawTestServer.hostKey, body: "name\nAnn\n")
        #expect(policy.errorCode == "bad_message")
        #expect(try server.request("GET", path, key: DrawTestServer.hostKey).status == 405)
    }
}
