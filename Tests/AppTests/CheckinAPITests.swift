@testable import App
import DrawEngine
import JSON
import Posix
import RoomTestSupport
import Testing
import TestSupport
import WebSocketClient
@testable import Server

extension DrawEndpoint {
    /// A phone's check-in; `cookie` is the device cookie it holds (nil: a new phone).
    func join(_ body: String, cookie: String? = nil) throws -> RawResponse {
        try request("POST", "/api/draws/\(DrawTestServer.code)/join", body: body,
                    headers: cookie.map { ["Cookie: \(DeviceToken.cookieName)=\($0)"] } ?? [])
    }

    /// Switches the default draw to a check-in pool and opens entries with `settings`.
    func openEntries(_ settings: String = "{}") throws {
        let configured = try command("config", body: #"{"pool":{"kind":"checkin"}}"#)
        guard configured.status == 200 else { throw TestFailure("configure: \(configured.text)") }
        let opened = try command("entries/open", body: settings)
        guard opened.status == 200 else { throw TestFailure("open: \(opened.text)") }
    }
}

extension RawResponse {
    /// The device token a response set.
    var deviceCookie: String? {
        for value in headers.values(for: "Set-Cookie") where value.hasPrefix(DeviceToken.cookieName + "=") {
            return String(value.dropFirst(DeviceToken.cookieName.count + 1).prefix { $0 != ";" })
        }
        return nil
    }
}

@Suite("Check-in over REST and WebSocket", .serialized)
struct CheckinAPITests {
    @Test func phonesJoinOncePerDeviceTheHostClosesAndTheRoundDrawsAVerifiablePublicID() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        try server.openEntries(#"{"fields":[{"key":"ticket","label":"Ticket","required":true,"unique":true}],"publicNames":true}"#)
        var cookies = [String: String]()
        var joinedNames = [String: JSONValue]()
        for n in 1...20 {
            let joined = try server.join(#"{"name":"Person \#(n)","fields":{"ticket":"T\#(n)"}}"#)
            #expect(joined.status == 201, "\(joined.text)")
            let cookie = try #require(joined.deviceCookie)
            #expect(joined.headers.values(for: "Set-Cookie").first?.contains("HttpOnly") == true)
            let id = try #require(joined.json["entry"]?["id"]?.stringValue)
            cookies[id] = cookie
            joinedNames[id] = .string("Person \(n)")
        }
        let first = try #require(cookies.values.first)
        let again = try server.join(#"{"name":"Again","fields":{"ticket":"T99"}}"#, cookie: first)
        #expect(again.status == 409 && again.errorCode == "already_joined")
        #expect(again.json["error"]?["entry"]?["id"]?.stringValue != nil)
        let duplicate = try server.join(#"{"name":"Dup","fields":{"ticket":"t1"}}"#)
        #expect(duplicate.status == 409 && duplicate.errorCode == "duplicate_value")
        #expect(duplicate.json["error"]?["field"]?.stringValue == "ticket")
        #expect(try server.command("start").errorCode == "entries_open")

        // The winner's phone has the room open with its cookie; another phone too.
        let closed = try server.command("entries/close")
        #expect(closed.status == 200 && closed.json["entrants"]?.intValue == 20)
        let pool = try server.request("GET", "/api/draws/\(DrawTestServer.code)/entries/pool").json
        let ids = (pool["entrants"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(Set(ids) == Set(cookies.keys))
        // Names are public here: the stage's wheel and field get them with the ids (issue 39 item 16).
        #expect(pool["names"] == .object(joinedNames))
        let state = try server.state()
        #expect(state["config"]?["pool"] == .object(["kind": .string("checkin"), "count": .int(20)]))
        #expect(state["checkin"]?["count"]?.intValue == 20)
        #expect(!(try server.request("GET", "/api/draws/\(DrawTestServer.code)").text.contains("Person 1")))

        var phones = [String: WebSocketClient]()
        for (id, cookie) in cookies {
            let socket = try WebSocketClient.connect(host: "127.0.0.1", port: server.port, path: "/ws/draw/\(DrawTestServer.code)",
                                                     headers: [("Cookie", "\(DeviceToken.cookieName)=\(cookie)")], timeout: .seconds(5))
            let snapshot = try socket.next(type: "state")
            #expect(snapshot["checkin"]?["me"]?["id"]?.stringValue == id)
            phones[id] = socket
        }
        let host = try server.host()
        #expect(try server.command("start").status == 200)
        let stopped = try server.command("stop")
        let winner = try #require(stopped.json["result"]?["winners"]?.arrayValue?.first?.stringValue)
        #expect(cookies[winner] != nil)
        let presence = try host.next(type: "winnerPresence")
        #expect(presence["winners"]?.arrayValue?.first?["connected"] == .bool(true))
        let names = try #require(phones[winner]).next(type: "winners")
        #expect(names["names"]?[winner]?.stringValue?.hasPrefix("Person ") == true)

        let export = try server.exportJSON()
        #expect(!export.contains("Person "))
        // With the host key the export carries the entrants (and still verifies: verifiers ignore the key).
        let hostExport = try server.request("GET", "/api/draws/\(DrawTestServer.code)/export.json", key: DrawTestServer.hostKey).text
        let hostJSON = try JSONValue.parse(hostExport)
        #expect(hostExport.contains("Person 1"))
        #expect(hostJSON["checkin"]?["entrants"]?.arrayValue?.count == 20)
        #expect(try RoundVerifier.verify(exportText: hostExport).passed)
        #expect(try server.request("GET", "/api/draws/\(DrawTestServer.code)/export.json", key: "wrong").status == 403)
        let records = try #require(try JSONValue.parse(export)["records"]?.arrayValue)
        let listed = records.first { $0["kind"]?.stringValue == "entrants" }?["entrants"]?.arrayValue?.compactMap(\.stringValue)
        #expect(listed == ids)
        let report = try RoundVerifier.verify(exportText: export)
        #expect(report.passed && report.roundCount == 1)
        for socket in phones.values { try? socket.close() }
    }

    @Test func theHostListsSearchesRemovesWithAReasonAndErasesAndARestartKeepsTheBook() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        try server.openEntries()
        var cookie: String?
        for n in 1...12 {
            let joined = try server.join(#"{"name":"Guest \#(n)"}"#)
            #expect(joined.status == 201)
            if n == 1 { cookie = joined.deviceCookie }
        }
        let path = "/api/draws/\(DrawTestServer.code)/entrants"
        let page = try server.request("GET", path + "?limit=5&offset=5", key: DrawTestServer.hostKey).json
        #expect(page["total"]?.intValue == 12 && page["items"]?.arrayValue?.count == 5)
        #expect(try server.request("GET", path).status == 401)
        let found = try server.request("GET", path + "?q=guest%2011", key: DrawTestServer.hostKey).json
        let id = try #require(found["items"]?.arrayValue?.first?["id"]?.stringValue)
        #expect(found["total"]?.intValue == 1)
        #expect(try server.request("DELETE", path + "/" + id, key: DrawTestServer.hostKey, body: "{}").errorCode == "bad_reason")
        #expect(try server.request("DELETE", path + "/" + id, key: DrawTestServer.hostKey, body: #"{"reason":"left"}"#).status == 200)
        #expect(try server.request("DELETE", path + "/" + id, key: DrawTestServer.hostKey,
                                   body: #"{"reason":"left"}"#).errorCode == "unknown_entrant")
        #expect(try server.command("entries/close").json["entrants"]?.intValue == 11)

        try server.restart()
        #expect(try server.state()["checkin"]?["count"]?.intValue == 11)
        let mine = try server.request("GET", "/api/draws/\(DrawTestServer.code)/entry",
                                      headers: ["Cookie: \(DeviceToken.cookieName)=\(try #require(cookie))"]).json
        #expect(mine["entry"]?["name"]?.stringValue == "Guest 1")
        #expect(try server.request("GET", "/api/draws/\(DrawTestServer.code)/entry").json["entry"] == .null)
        let csv = try server.request("GET", path + ".csv", key: DrawTestServer.hostKey).text
        #expect(csv.contains("Guest 11") && csv.contains("left"))

        #expect(try server.command("entrants/erase").status == 200)
        let erased = try server.request("GET", path + ".csv", key: DrawTestServer.hostKey).text
        #expect(!erased.contains("Guest") && erased.contains(id))
        #expect(try server.state()["remaining"]?.intValue == 0)
    }

    @Test func closedEntriesWrongPresenceCodesAndJunkAreRefusedAndStoreNothing() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        #expect(try server.join(#"{"name":"Early"}"#).errorCode == "not_checkin")
        try server.openEntries(#"{"presence":true}"#)
        #expect(try server.join(#"{"name":"No code"}"#).errorCode == "bad_code")
        let presence = try server.request("GET", "/api/draws/\(DrawTestServer.code)/entries/presence", key: DrawTestServer.hostKey).json
        let code = try #require(presence["code"]?.stringValue)
        let wrong = code == "0000" ? "0001" : "0000"
        #expect(try server.join(#"{"name":"Right","code":"\#(code)"}"#).status == 201)
        // One device guessing: 5 tries, then limited; a script cycling devices: limited per address.
        var refusals = [String]()
        for _ in 0..<8 { refusals.append(try server.join(#"{"name":"Guess","code":"\#(wrong)"}"#, cookie: "aaaaaaaaaaaaaaaaaaaaaaaaaa").errorCode ?? "") }
        #expect(refusals == Array(repeating: "bad_code", count: 5) + Array(repeating: "rate_limited", count: 3))
        var limited = false
        for _ in 0..<60 where !limited {
            let response = try server.join(#"{"name":"Guess","code":"\#(wrong)"}"#)
            limited = response.errorCode == "rate_limited"
            #expect(response.errorCode == "bad_code" || limited)
        }
        #expect(limited)
        // Even the right code waits now: the address is guessing.
        #expect(try server.join(#"{"name":"Right too","code":"\#(code)"}"#).errorCode == "rate_limited")
        for junk in ["", "not json", "[]", #"{"name":123}"#, #"{"name":"\#(String(repeating: "x", count: 9000))"}"#] {
            let response = try server.join(junk)
            #expect(response.status >= 400 && response.status < 500, "\(junk.prefix(20)): \(response.status)")
        }
        #expect(try server.command("entries/close").json["entrants"]?.intValue == 1)
        #expect(try server.join(#"{"name":"Late"}"#).errorCode == "entries_closed")
        #expect(try server.state()["checkin"]?["count"]?.intValue == 1)
    }
}
