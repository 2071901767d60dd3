import JSON
import DrawEngine
import Testing
@testable import App
import TestSupport

/// Big pools over REST (`--max-pool-bytes`): the host may upload 100,000 realistic names as JSON
/// or as CSV text; without the host key, and on every other endpoint, bodies stay within 1 MiB.
@Suite struct PoolUploadAPITests {
    /// 100,000 names of about 15 characters: 1.7 MB as a JSON list, over the 1 MiB default.
    static func names(_ count: Int) -> [String] {
        let first = ["Ann", "Bob", "Zoë", "Maria", "José", "李雷", "Priya", "Sven"]
        let last = ["Smith", "Müller", "García", "O'Neil", "Nguyen", "王"]
        return (0..<count).map { "\(first[$0 % first.count]) \(last[($0 / first.count) % last.count]) \($0)" }
    }

    @Test func theHostUploadsAHundredThousandNamesAsJSONAndNobodyElseSendsMoreThanOneMebibyte() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(50))
        defer { server.stop() }
        let names = Self.names(100_000)
        let config = JSONValue.object(["pool": .object(["kind": .string("list"), "entrants": .array(names.map { .string($0) })]),
                                       "perStop": .int(3)]).canonicalString
        #expect(config.utf8.count > 1_600_000)
        let before = try server.exportJSON()

        let stranger = try server.command("config", body: config, key: "not-the-key-0123456789")
        #expect(stranger.status == 413, "a wrong key never gets the larger limit")
        let none = try server.request("PUT", "/api/draws/\(DrawTestServer.code)/config", body: config)
        #expect(none.status == 413)
        let start = try server.request("POST", "/api/draws/\(DrawTestServer.code)/start", key: DrawTestServer.hostKey, body: config)
        #expect(start.status == 413, "only pool uploads get the larger limit")
        #expect(try server.state()["config"]?["pool"]?["kind"] == .string("range"))

        let saved = try server.command("config", body: config)
        #expect(saved.status == 200, "\(saved.text.prefix(200))")
        let state = try server.state()
        #expect(state["remaining"] == .int(100_000))
        #expect(state["config"]?["pool"]?["entrants"]?.arrayValue?.last == .string(names.last!))
        #expect(try server.exportJSON() == before, "configure adds no record")
        #expect(try server.command("start").status == 200)
        let winners = try server.command("stop").json["result"]?["winners"]?.arrayValue ?? []
        #expect(winners.count == 3)
        #expect(try RoundVerifier.verify(exportText: server.exportJSON()).passed)
    }

    @Test func theCSVTextItselfBecomesThePoolAndTheOtherSettingsStay() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(50))
        defer { server.stop() }
        let prizes = JSONValue.object(["perStop": .int(2), "prizes": .array([.object(["name": .string("Lunch"), "count": .int(4)])])])
        #expect(try server.command("config", body: prizes.canonicalString).status == 200)
        let path = "/api/draws/\(DrawTestServer.code)/pool"
        var csv = "\u{FEFF}Employee ID,Name,Tickets,Department\r\n"
        for (i, name) in Self.names(40_000).enumerated() { csv += "E\(i),\"\(name)\",\(1 + i % 3),\(["IT", "Sales", ""][i % 3])\r\n" }
        #expect(csv.utf8.count > 1 << 20)

        #expect(try server.request("PUT", path, body: csv).status == 413)
        #expect(try server.request("PUT", path, body: "name\nAnn\nBob\n").errorCode == "unauthorized")
        #expect(try server.request("POST", path, key: DrawTestServer.hostKey, body: "name\nAnn\n").status == 405)

        let saved = try server.request("PUT", path, key: DrawTestServer.hostKey, body: csv, headers: ["Content-Type: text/csv"])
        #expect(saved.status == 200, "\(saved.text.prefix(300))")
        #expect(saved.json["command"] == .string("configure") && saved.json["count"] == .int(40_000) && saved.json["tickets"] == .int(80_000 - 1))
        let state = try server.state()
        #expect(state["remaining"] == .int(40_000) && state["config"]?["perStop"] == .int(2))
        #expect(state["config"]?["prizes"]?.arrayValue?.first?["name"] == .string("Lunch"))
        let first = state["config"]?["pool"]?["entrants"]?.arrayValue?.first
        #expect(first?["name"] == .string(Self.names(1)[0]) && first?["tickets"] == .int(1) && first?["group"] == .string("IT"))
        #expect(first?["id"] == nil, "ids never reach the public state")

        // A file with a bad row changes nothing and says why.
        let rejected = try server.request("PUT", path, key: DrawTestServer.hostKey, body: "Name,Tickets\nAnn,2\nBob,x\nAnn,1\n")
        #expect(rejected.status == 422 && rejected.errorCode == "import_rejected")
        #expect(rejected.json["error"]?["rejectedCount"] == .int(2))
        #expect(rejected.json["error"]?["entrants"] == nil)
        #expect(try server.state()["remaining"] == .int(40_000))
        let merged = try server.request("PUT", path + "?duplicates=merge", key: DrawTestServer.hostKey, body: "Name,Tickets\nAnn,2\nBob,1\nAnn,1\n")
        #expect(merged.status == 200 && merged.json["tickets"] == .int(4))
        let broken = try server.request("PUT", path, key: DrawTestServer.hostKey, body: "name\n\"Ann\n")
        #expect(broken.errorCode == "import_unterminated_quote")
        #expect(try server.state()["remaining"] == .int(2))
    }
}
