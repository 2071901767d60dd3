import JSON
import DrawEngine
import Testing
@testable import App
import TestSupport

/// `excludeWinnersOf` over REST on a real server: a host links another draw with that draw's
/// host key, its winners are locked out at Start, the round verifies, and no key is kept or shown.
@Suite struct PastWinnersAPITests {
    static let staff = JSONValue.array((0..<10).map { .object(["name": .string("Person \($0)"), "id": .string("E\($0)")]) })

    @Test func aDrawExcludesTheWinnersOfADrawItsHostControls() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(30))
        defer { server.stop() }
        let created = try server.request("POST", "/api/draws", key: DrawTestServer.adminKey,
                                         body: JSONValue.object(["config": .object(["pool": .object(["kind": .string("list"), "entrants": Self.staff]),
                                                                                    "perStop": .int(3)])]).canonicalString)
        let lunch = try #require(created.json["code"]?.stringValue), lunchKey = try #require(created.json["hostKey"]?.stringValue)
        #expect(try server.command("start", key: lunchKey, code: lunch).status == 200)
        let lunchWinners = try server.command("stop", key: lunchKey, code: lunch).json["result"]?["winners"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(lunchWinners.count == 3)

        func config(_ link: JSONValue) -> String {
            JSONValue.object(["pool": .object(["kind": .string("list"), "entrants": Self.staff]), "perStop": .int(7),
                              "excludeWinnersOf": .array([link])]).canonicalString
        }
        let before = try server.state()
        #expect(try server.command("config", body: config(.string(lunch))).errorCode == "past_draw_key")
        let wrong = try server.command("config", body: config(.object(["code": .string(lunch), "key": .string("wrong-key-0123456789")])))
        #expect(wrong.status == 403 && wrong.errorCode == "past_draw_key")
        #expect(try server.command("config", body: config(.object(["code": .string("NOSUCH"), "key": .string(lunchKey)]))).errorCode == "bad_past_draw")
        #expect(try server.command("config", body: config(.object(["code": .string(DrawTestServer.code), "key": .string(DrawTestServer.hostKey)])))
            .errorCode == "bad_past_draw")
        #expect(try server.state()["config"] == before["config"], "refused links change nothing")

        let linked = try server.command("config", body: config(.object(["code": .string(lunch), "key": .string(lunchKey)])))
        #expect(linked.status == 200, "\(linked.text)")
        let state = try server.state()
        #expect(state["config"]?["excludeWinnersOf"] == .array([.string(lunch)]))
        #expect(state["remaining"] == .int(7), "the published lock already leaves the lunch winners out")
        // Kept without the key on a later configure.
        #expect(try server.command("config", body: config(.string(lunch))).status == 200)

        #expect(try server.command("start").status == 200)
        let winners = try server.command("stop").json["result"]
        let names = winners?["winners"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(names.count == 7 && Set(names).isDisjoint(with: lunchWinners))
        let past = winners?["pool"]?["pastWinners"]?.arrayValue?.first
        #expect(past?["code"] == .string(lunch) && past?["removed"]?.arrayValue?.count == 3)
        let export = try server.exportJSON()
        #expect(try RoundVerifier.verify(exportText: export).passed)
        let lunchExport = try server.exportJSON(code: lunch)
        let lunchHashes = try JSONValue.parse(lunchExport)["records"]?.arrayValue?.compactMap { $0["hash"]?.stringValue } ?? []
        #expect(past?["head"]?.stringValue == lunchHashes.last && past?["records"] == .int(Int64(lunchHashes.count)))
        for text in [export, try server.state().canonicalString, try server.state(code: lunch).canonicalString] {
            #expect(!text.contains(lunchKey) && !text.contains("\"E1\""), "no key and no entrant id is ever shown")
        }
    }
}
