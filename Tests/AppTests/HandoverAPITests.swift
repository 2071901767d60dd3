@testable import App
import DrawEngine
import JSON
import Testing
import TestSupport
@testable import Server

/// The prize table over REST (issue 45): the owner lists the vouchers, looks one up, hands its
/// prize over; the audit log names who and never holds the code; after a restart the hand-over
/// is read back (the list, a second hand-over refused); the winners' CSV has the columns.
@Suite("Prize hand-over over REST", .serialized)
struct HandoverAPITests {
    @Test func aHandOverIsOnTheAuditLogAndSurvivesARestart() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        try server.openEntries()
        for n in 1...3 { #expect(try server.join(#"{"name":"Guest \#(n)"}"#).status == 201) }
        #expect(try server.command("entries/close").status == 200)
        #expect(try server.command("start").status == 200)
        let winner = try #require(try server.command("stop").json["result"]?["winners"]?.arrayValue?.first?.stringValue)
        let path = "/api/draws/\(DrawTestServer.code)/"
        let list = try server.request("GET", path + "handovers", key: DrawTestServer.hostKey).json
        let item = try #require(list["items"]?.arrayValue?.first)
        let code = try #require(item["code"]?.stringValue)
        #expect(item["winner"]?.stringValue == winner && item["state"]?.stringValue == "waiting")
        #expect(try server.request("GET", path + "handovers").status == 401)

        let look = try server.request("POST", path + "handover", key: DrawTestServer.hostKey, body: #"{"code":"\#(code)"}"#)
        #expect(look.status == 200 && look.json["voucher"]?["winner"]?.stringValue == winner)
        #expect(try server.request("POST", path + "handover", key: DrawTestServer.hostKey, body: #"{"code":"0000-0001"}"#).errorCode == "bad_voucher")
        #expect(try server.request("POST", path + "handover", key: DrawTestServer.hostKey, body: #"{"code":"0000-0000"}"#).errorCode == "unknown_voucher")
        let done = try server.request("POST", path + "handover", key: DrawTestServer.hostKey, body: #"{"code":"\#(code)","confirm":true}"#)
        #expect(done.status == 200 && done.json["voucher"]?["state"]?.stringValue == "handedOver")
        let audit = try server.request("GET", path + "audit", key: DrawTestServer.hostKey).text
        #expect(audit.contains(#""action":"handover""#) && !audit.contains(code))

        try server.restart()
        let after = try server.request("GET", path + "handovers", key: DrawTestServer.hostKey).json
        #expect(after["handedOver"]?.intValue == 1 && after["total"]?.intValue == 1)
        #expect(after["items"]?.arrayValue?.first?["by"]?.stringValue == "owner")
        let again = try server.request("POST", path + "handover", key: DrawTestServer.hostKey, body: #"{"code":"\#(code)","confirm":true}"#)
        #expect(again.status == 409 && again.errorCode == "already_handed_over")
        #expect(again.json["error"]?["voucher"]?["by"]?.stringValue == "owner")
        let csv = try server.request("GET", path + "export.csv", key: DrawTestServer.hostKey).text
        // The header ends with the two columns (CRLF lines: RFC 4180).
        #expect(csv.contains(",name,handed over,by\r\n"))
        // The public download (no key) names no staff member and no hand-over time.
        let open = try server.request("GET", path + "export.csv").text
        #expect(open.contains("\r\n") && !open.contains("handed over") && !open.contains("owner"))
    }

    /// The auditor's pack's summary lists each hand-over from the audit log (round, winner, prize, time, who).
    @Test func theAuditorsPackSummaryListsTheHandOvers() throws {
        let detail = #"{"at":1764000000000,"operator":"Mia","operatorId":"op1","prize":"Bike","round":1,"winner":"7QK2MX3A"}"#
        let entry = AuditExport.Entry(index: 4, atMillis: 1_764_000_000_100, actor: "host", action: "handover", detail: detail,
                                      prev: String(repeating: "0", count: 64), hash: String(repeating: "1", count: 64))
        let inputs = AuditPackDocuments.Inputs(code: "PACK", exportText: #"{"records":[]}"#, audit: [entry], serverKey: nil,
                                               software: BinaryIdentity.software, madeAt: 0)
        let summary = String(decoding: try #require(AuditPackDocuments.files(inputs).first { $0.name == "summary.html" }).bytes, as: UTF8.self)
        #expect(summary.contains("<h2>Prizes handed over</h2>"))
        #expect(summary.contains("<tr><td>1</td><td>7QK2MX3A · Bike</td><td>2025-11-24T16:00:00Z</td><td>Mia</td></tr>"))
    }
}
