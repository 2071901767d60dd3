import Foundation
import Testing
@testable import App
@testable import Server
import TestSupport

@Suite struct CalcAPITests {
    @Test func evaluatesAKeyListToTheFinalDisplayWithoutSeq() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let response = try server.post("/api/calc", body: #"{"keys":["1","+","2","="],"mode":"basic","angle":"rad"}"#)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.text == #"{"type":"display","display":"3","expression":"1 + 2 =","error":null,"message":null,"memory":false,"mode":"basic","angle":"rad","history":[{"expression":"1 + 2 =","result":"3"}]}"#)
    }

    @Test(arguments: [
        (#"{"keys":["2","+","3","*","4","="]}"#, "20"),
        (#"{"keys":["2","+","3","*","4","="],"mode":"scientific"}"#, "14"),
        (#"{"keys":["3","0","sin"],"angle":"deg"}"#, "0.5"),
        (#"{"keys":[]}"#, "0"),
        (#"{"keys":["0",".","1","+","0",".","2","="],"extra":{"ignored":true}}"#, "0.3"),
    ])
    func honoursModeAndAngle(_ body: String, _ expected: String) throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let response = try server.post("/api/calc", body: body)
        #expect(response.status == 200)
        #expect(try CalcTestClient.object(response.text)["display"] as? String == expected)
    }

    @Test(arguments: [
        ("{", 400, "bad_json", nil),
        ("", 400, "bad_json", nil),
        ("[]", 400, "bad_request", nil),
        (#"{"keys":"1+2"}"#, 400, "bad_request", nil),
        (#"{"mode":"basic"}"#, 400, "bad_request", nil),
        (#"{"keys":["1","+",2]}"#, 400, "bad_request", 2),
        (#"{"keys":["1","+","two","="]}"#, 400, "unknown_key", 2),
        (#"{"keys":["1"],"mode":"hex"}"#, 400, "bad_request", nil),
        (#"{"keys":["1"],"angle":"grad"}"#, 400, "bad_request", nil),
        (#"{"keys":["1"],"mode":null}"#, 400, "bad_request", nil),
    ] as [(String, Int, String, Int?)])
    func rejectsBadRequestsWithACodedError(_ body: String, _ status: Int, _ code: String, _ index: Int?) throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let response = try server.post("/api/calc", body: body)
        #expect(response.status == status)
        let error = try CalcTestClient.object(response.text)["error"] as? [String: Any]
        #expect(error?["code"] as? String == code)
        #expect((error?["message"] as? String)?.isEmpty == false)
        #expect(error?["index"] as? Int == index)
    }

    @Test func acceptsTenThousandKeysAndRefusesOneMoreWith413() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        // 1 + 1 and 9,997 repeated `=` (each adds 1 again): exactly 10,000 keys.
        let keys = ["1", "+", "1"] + Array(repeating: "=", count: 9_997)
        func body(_ keys: [String]) -> String { "{\"keys\":[" + keys.map { "\"\($0)\"" }.joined(separator: ",") + "]}" }
        let accepted = try server.post("/api/calc", body: body(keys), timeout: .seconds(30))
        #expect(accepted.status == 200)
        #expect(try CalcTestClient.object(accepted.text)["display"] as? String == "9998")
        let refused = try server.post("/api/calc", body: body(keys + ["="]))
        #expect(refused.status == 413)
        #expect((try CalcTestClient.object(refused.text)["error"] as? [String: Any])?["code"] as? String == "too_large")
    }

    @Test func aCalculatorErrorIsADisplayNotAnHTTPError() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let response = try server.post("/api/calc", body: #"{"keys":["1","/","0","="]}"#)
        #expect(response.status == 200)
        let display = try CalcTestClient.object(response.text)
        #expect(display["error"] as? String == "divide_by_zero")
        #expect(display["message"] as? String == "Cannot divide by zero")
        #expect(display["seq"] == nil)
    }

    @Test func onlyPostIsAllowed() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let response = try server.get("/api/calc")
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "POST")
    }

    @Test func appliedKeysAreCounted() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        _ = try server.post("/api/calc", body: #"{"keys":["1","+","2","="]}"#)
        _ = try server.post("/api/calc", body: #"{"keys":["1","+","bad"]}"#)
        #expect(try server.metricValue(#"tombola_calc_keys_applied_total{via="api"}"#) == 4)
    }
}
