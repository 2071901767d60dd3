import Foundation
import Testing
@testable import App
@testable import Server
import TestSupport

/// Digits on demand over `/ws/calc` and `/api/calc` (docs/PROTOCOL.md, "Digits").
@Suite struct CalcDigitsTests {
    @Test func aSocketGetsProvenDigitsOfItsResult() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        _ = try client.type("2 sqrt")
        try client.send(#"{"type":"digits","position":1,"count":20}"#)
        let digits = try client.nextObject()
        #expect(digits["type"] as? String == "digits")
        #expect(digits["seq"] as? Int == 2)
        #expect(digits["status"] as? String == "digits")
        #expect(digits["integer"] as? String == "1")
        #expect(digits["digits"] as? String == "41421356237309504880")
        #expect(digits["exact"] as? Bool == false)
        #expect(digits["repeat"] is NSNull)
        // Keys still answer while and after digits are computed.
        try client.send(#"{"type":"digits","position":981,"count":20}"#)
        let far = try client.nextObject()
        #expect((far["digits"] as? String)?.count == 20 && far["position"] as? Int == 981)
        #expect(try client.type("C")["display"] as? String == "0")
    }

    @Test func anExactResultMarksItsPeriod() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        _ = try client.type("1 / 7 =")
        try client.send(#"{"type":"digits","count":12}"#)
        let digits = try client.nextObject()
        #expect(digits["digits"] as? String == "142857142857")
        #expect(digits["exact"] as? Bool == true)
        let period = try #require(digits["repeat"] as? [String: Any])
        #expect(period["start"] as? Int == 1 && period["length"] as? Int == 6)
    }

    @Test(arguments: [
        (#"{"type":"digits"}"#, "bad_request"),
        (#"{"type":"digits","count":0}"#, "bad_request"),
        (#"{"type":"digits","count":"5"}"#, "bad_request"),
        (#"{"type":"digits","position":0,"count":5}"#, "bad_request"),
        (#"{"type":"digits","count":1001}"#, "out_of_range"),
        (#"{"type":"digits","position":19999,"count":5}"#, "out_of_range"),
    ])
    func badRequestsGetAClearErrorAndChangeNothing(_ message: String, _ code: String) throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        _ = try client.type("5")
        try client.send(message)
        let error = try client.nextObject()
        #expect(error["type"] as? String == "error" && error["code"] as? String == code, "\(message)")
        #expect(try client.type("=")["display"] as? String == "5")
    }

    @Test func anErrorShownHasNoDigits() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        _ = try client.type("1 / 0 =")
        try client.send(#"{"type":"digits","count":5}"#)
        #expect(try client.nextObject()["code"] as? String == "no_result")
    }

    @Test func theBudgetHoldsFiveFarRequestsAndRefillsOverTime() {
        var budget = DigitsBudget()
        let start = ContinuousClock.now
        for _ in 0..<5 { #expect(budget.spend(20_000, at: start) == nil) }
        #expect(budget.spend(20_000, at: start) == 2.0)
        #expect(budget.spend(10_001, at: start + .seconds(1)) != nil)
        #expect(budget.spend(10_000, at: start + .seconds(1)) == nil)
        #expect(budget.spend(100_000, at: start + .seconds(60)) == nil)
    }

    @Test func theAPIAddsDigitsToTheDisplay() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let response = try server.post("/api/calc", body: #"{"keys":["pi"],"digits":{"position":1,"count":10}}"#)
        #expect(response.status == 200)
        let body = try CalcTestClient.object(response.text)
        #expect(body["display"] as? String == "3.141592653589793")
        let digits = try #require(body["digits"] as? [String: Any])
        #expect(digits["digits"] as? String == "1415926535" && digits["integer"] as? String == "3")
        let error = try server.post("/api/calc", body: #"{"keys":["1","/","0","="],"digits":{"count":3}}"#)
        #expect((try CalcTestClient.object(error.text)["digitsError"] as? [String: Any])?["code"] as? String == "no_result")
        let bad = try server.post("/api/calc", body: #"{"keys":["1"],"digits":{"count":5000}}"#)
        #expect(bad.status == 400 && bad.text.contains("out_of_range"))
    }
}
