import Foundation
import Testing
import WebSocketClient
import Locking
import Posix
@testable import App
@testable import Server
import TestSupport

@Suite struct CalcWebSocketTests {
    @Test func greetsWithAHexSessionIdAndTheFirstDisplay() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        #expect(client.session.count == 32)
        #expect(client.session.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(client.greetingText == #"{"type":"display","seq":0,"display":"0","expression":"","error":null,"message":null,"memory":false,"mode":"basic","angle":"rad","history":[]}"#)
        let other = try CalcTestClient(server: server)
        defer { other.close() }
        #expect(other.session != client.session)
    }

    @Test(arguments: [
        ("0.1 + 0.2 =", "basic", "rad", "0.3"),
        ("0.1 * 3 - 0.3 =", "basic", "rad", "0"),
        ("99999999 * 99999999 =", "basic", "rad", "9999999800000001"),
        ("2 + 3 * 4 =", "basic", "rad", "20"),
        ("1 + - 2 =", "basic", "rad", "-1"),
        ("2 + 3 = =", "basic", "rad", "8"),
        ("2 + =", "basic", "rad", "4"),
        ("200 + 10 % =", "basic", "rad", "220"),
        ("50 %", "basic", "rad", "0.5"),
        ("1 / 3 * 3 =", "basic", "rad", "1"),
        ("2 + 3 * 4 =", "scientific", "rad", "14"),
        ("2 ^ 3 ^ 2 =", "scientific", "rad", "512"),
        ("27 ^ ( 1 / 3 ) =", "scientific", "rad", "3"),
        ("30 sin", "basic", "deg", "0.5"),
        ("pi sin", "scientific", "rad", "0"),
        ("2 sqrt sq", "basic", "rad", "2"),
    ])
    func specExamplesOverTheSocket(_ sequence: String, _ mode: String, _ angle: String, _ expected: String) throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        try client.send(["type": "mode", "mode": mode])
        #expect(try client.nextObject()["mode"] as? String == mode)
        try client.send(["type": "angle", "unit": angle])
        #expect(try client.nextObject()["angle"] as? String == angle)
        let display = try client.type(sequence)
        #expect(display["display"] as? String == expected, "\(sequence) in \(mode)/\(angle)")
        #expect(display["error"] is NSNull)
    }

    @Test func calculatorSocketsMoveToTheInteractiveLoopAndAreCountedOnce() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let loops = try #require(server.server.eventLoopGroup?.loops)
        let interactive = try #require(loops.last)
        let before = registeredCount(on: interactive)
        let client = try CalcTestClient(server: server)
        #expect(registeredCount(on: interactive) == before + 1, "the calc socket is registered on the interactive loop")
        #expect(try client.type("6 * 7 =")["display"] as? String == "42")
        #expect(try Abuse.openConnections(of: server) == 1)
        client.close()
        #expect(try Abuse.eventually(within: .seconds(10)) { try Abuse.openConnections(of: server) == 0 })
        #expect(Abuse.eventually(within: .seconds(10)) { registeredCount(on: interactive) == before })
    }

    /// Sockets registered with `loop`, read on the loop itself.
    private func registeredCount(on loop: EventLoop) -> Int {
        let done = DispatchSemaphore(value: 0)
        let count = Lock(0)
        loop.execute {
            count.withLock { $0 = loop.registeredCount }
            done.signal()
        }
        done.wait()
        return count.withLock { $0 }
    }

    @Test func divisionByZeroIsAnErrorStateWithItsMessage() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        let display = try client.type("1 / 0 =")
        #expect(display["error"] as? String == "divide_by_zero")
        #expect(display["message"] as? String == "Cannot divide by zero")
        #expect(display["display"] as? String == "Cannot divide by zero")
        #expect(try client.press("C")["error"] is NSNull)
    }

    @Test func everyKeyGetsExactlyOneDisplayEchoingItsSeq() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        // Pipelined: all keys first, then the replies, in order.
        let keys = calcKeys("12 + 7 * 2 =")
        for (index, key) in keys.enumerated() { try client.send(["type": "key", "key": key, "seq": 10 + index]) }
        for index in keys.indices {
            let reply = try client.nextObject()
            #expect(reply["type"] as? String == "display")
            #expect(reply["seq"] as? Int == 10 + index)
        }
        try client.send(["type": "mode", "mode": "basic"])
        let after = try client.nextObject()
        #expect(after["display"] as? String == "38")
        #expect(after["seq"] as? Int == 10 + keys.count - 1, "a display that answers no key carries the last applied seq")
    }

    @Test func aRepeatedOrOlderSeqIsAnsweredWithoutBeingApplied() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        try client.press("1", seq: 1)
        #expect(try client.press("1", seq: 2)["display"] as? String == "11")
        let repeated = try client.press("1", seq: 2)
        #expect(repeated["display"] as? String == "11")
        let older = try client.press("5", seq: 1)
        #expect(older["display"] as? String == "11")
        #expect(try client.press("2", seq: 7)["display"] as? String == "112", "gaps in seq are fine")
        #expect(try client.press("3", seq: 5)["display"] as? String == "112")
    }

    @Test func aResumedSessionKeepsItsStateAndReportsTheLastAppliedSeq() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let first = try CalcTestClient(server: server)
        try first.type("1 + 2")
        let id = first.session
        first.close()
        #expect(try waitUntil { try server.metricValue("tombola_calc_sessions_open") == 0 })

        let second = try CalcTestClient(server: server)
        defer { second.close() }
        #expect(second.session != id)
        #expect(second.greeting["display"] as? String == "0")
        try second.send(["type": "resume", "session": id])
        try second.readGreeting()
        #expect(second.session == id)
        #expect(second.greeting["display"] as? String == "2")
        #expect(second.greeting["expression"] as? String == "1 +")
        #expect(second.greeting["seq"] as? Int == 3)
        // The page resends its queued key 3 and sends key 4: only 4 is new.
        #expect(try second.press("2", seq: 3)["display"] as? String == "2")
        #expect(try second.press("=", seq: 4)["display"] as? String == "3")
    }

    @Test func resumingASessionHeldByAnotherSocketMovesThatSocketToANewSession() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let first = try CalcTestClient(server: server)
        defer { first.close() }
        try first.type("4 +")
        let id = first.session
        let second = try CalcTestClient(server: server)
        defer { second.close() }
        try second.send(["type": "resume", "session": id])
        try second.readGreeting()
        #expect(second.session == id)
        #expect(second.greeting["display"] as? String == "4")

        try first.readGreeting()
        #expect(first.session != id)
        #expect(first.greeting["display"] as? String == "0")
        #expect(try second.press("5", seq: 3)["display"] as? String == "5")
        #expect(try second.press("=", seq: 4)["display"] as? String == "9")
    }

    @Test(arguments: ["0123456789abcdef0123456789abcdef", "not-a-session", ""])
    func anUnknownSessionIsAnErrorAndTheFreshSessionStays(_ id: String) throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        try client.type("7 *")
        try client.send(["type": "resume", "session": id])
        let error = try client.nextObject()
        #expect(error["type"] as? String == "error")
        #expect(error["code"] as? String == "unknown_session")
        #expect(try client.type("6 =")["display"] as? String == "42")
    }

    @Test func aSessionIsForgottenWhenItsKeepTimeRunsOut() throws {
        let store = CalcSessionStore(ttl: .milliseconds(200))
        var router = Router()
        CalcService.install(into: &router, service: CalcService(store: store, sweepInterval: .milliseconds(50)))
        let server = try TestServer(router: router)
        defer { server.stop() }
        let first = try CalcTestClient(server: server)
        try first.type("8")
        let id = first.session
        first.close()
        #expect(waitUntil { store.count == 1 && store.heldCount == 0 })
        #expect(waitUntil { store.count == 0 }, "the sweep timer drops it")
        let second = try CalcTestClient(server: server)
        defer { second.close() }
        try second.send(["type": "resume", "session": id])
        #expect(try second.nextObject()["code"] as? String == "unknown_session")
    }

    static let badMessages: [(message: String, code: String)] = [
        ("not json", "bad_json"),
        (#"{"type":"key","key":"1","seq":4"#, "bad_json"),
        (#"{"type":"key","key":"1","seq":4}x"#, "bad_json"),
        (String(repeating: "[", count: 40) + String(repeating: "]", count: 40), "bad_json"),
        ("[]", "bad_request"),
        ("42", "bad_request"),
        (#"{"key":"1","seq":4}"#, "bad_request"),
        (#"{"type":7}"#, "bad_request"),
        (#"{"type":"nope"}"#, "unknown_type"),
        (#"{"type":"key","key":"bogus","seq":9}"#, "unknown_key"),
        (#"{"type":"key","key":"recall:01","seq":9}"#, "unknown_key"),
        (#"{"type":"key","key":"1"}"#, "bad_request"),
        (#"{"type":"key","key":"1","seq":null}"#, "bad_request"),
        (#"{"type":"key","key":"1","seq":1.5}"#, "bad_request"),
        (#"{"type":"key","key":"1","seq":4.0}"#, "bad_request"),
        (#"{"type":"key","key":"1","seq":1e1}"#, "bad_request"),
        (#"{"type":"key","key":"1","seq":0}"#, "bad_request"),
        (#"{"type":"key","key":"1","seq":-4}"#, "bad_request"),
        (#"{"type":"key","key":"1","seq":"4"}"#, "bad_request"),
        (#"{"type":"key","key":"1","seq":9007199254740992}"#, "bad_request"),
        (#"{"type":"key","key":1,"seq":4}"#, "bad_request"),
        (#"{"type":"mode","mode":"hex"}"#, "bad_request"),
        (#"{"type":"mode"}"#, "bad_request"),
        (#"{"type":"angle","unit":"grad"}"#, "bad_request"),
        (#"{"type":"angle","angle":"deg"}"#, "bad_request"),
        (#"{"type":"resume"}"#, "bad_request"),
        (#"{"type":"resume","session":"ffffffffffffffffffffffffffffffff"}"#, "unknown_session"),
        (#"{"type":"key","key":"1","seq":4,"pad":""# + String(repeating: "x", count: 5000) + #""}"#, "too_large"),
    ]

    @Test func everyErrorFrameLeavesTheSessionUnchangedAndTheSocketOpen() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        try client.send(["type": "mode", "mode": "scientific"])
        _ = try client.nextObject()
        let before = try client.type("1 + 2")
        for (message, code) in Self.badMessages {
            try client.send(message)
            let reply = try client.nextObject()
            #expect(reply["type"] as? String == "error", "\(message.prefix(60))")
            #expect(reply["code"] as? String == code, "\(message.prefix(60))")
            #expect((reply["message"] as? String)?.isEmpty == false)
        }
        try client.socket.send(binary: [1, 2, 3])
        #expect(try client.nextObject()["code"] as? String == "bad_request")
        // Nothing changed: the same display, and seq 4 (and 9, named by a rejected key) are still unused.
        try client.send(["type": "mode", "mode": "scientific"])
        let same = try client.nextObject()
        for field in ["display", "expression", "mode", "angle", "seq"] {
            #expect(String(describing: same[field]) == String(describing: before[field]), "\(field)")
        }
        #expect(try client.press("*", seq: 4)["display"] as? String == "2")
        #expect(try client.press("3", seq: 5)["display"] as? String == "3")
        #expect(try client.press("=", seq: 9)["display"] as? String == "7")
    }

    @Test func aMessageOver64KiBClosesWith1009() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        try client.send(String(repeating: " ", count: 64 * 1024 + 1))
        #expect(try client.socket.receiveCloseCode() == 1009)
    }

    @Test func anUnknownKeyErrorNamesTheSeqOfThatKey() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        try client.send(#"{"type":"key","key":"sinh","seq":3}"#)
        let error = try client.nextObject()
        #expect(error["code"] as? String == "unknown_key")
        #expect(error["seq"] as? Int == 3)
        #expect(error["message"] as? String == "Unknown key \"sinh\"")
    }

    @Test func modeAndAngleAreAnsweredWithADisplay() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server)
        defer { client.close() }
        try client.type("2 + 3 *")
        try client.send(#"{"type":"mode","mode":"scientific"}"#)
        let scientific = try client.nextObject()
        #expect(scientific["mode"] as? String == "scientific")
        #expect(scientific["seq"] as? Int == 4)
        #expect(try client.type("3 + 3 * 4 =")["display"] as? String == "15")
        try client.send(#"{"type":"angle","unit":"deg"}"#)
        let degrees = try client.nextObject()
        #expect(degrees["angle"] as? String == "deg")
        #expect(try client.type("90 asin")["error"] as? String == "invalid_input")
        #expect(try client.type("C 1 asin")["display"] as? String == "90")
        try client.send(#"{"type":"angle","unit":"rad"}"#)
        #expect(try client.nextObject()["angle"] as? String == "rad")
        try client.send(#"{"type":"mode","mode":"basic"}"#)
        #expect(try client.nextObject()["mode"] as? String == "basic")
        #expect(try client.type("C 2 + 3 * 4 =")["display"] as? String == "20")
    }

    @Test func historyAndMemoryAppearInTheDisplay() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        let client = try CalcTestClient(server: server, deflate: true)
        defer { client.close() }
        try client.type("1 + 2 =")
        let display = try client.type("MS 5 * 2 =")
        #expect(display["memory"] as? Bool == true)
        let history = display["history"] as? [[String: String]]
        #expect(history == [["expression": "1 + 2 =", "result": "3"], ["expression": "5 × 2 =", "result": "10"]])
        #expect(try client.press("recall:0")["display"] as? String == "3")
    }

    @Test func onlyTheExactPathIsTheCalculator() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        #expect(try server.handshake("/ws/calculator", lines: validHandshakeLines).status == 404)
        #expect(try server.handshake("/ws/calc/x", lines: validHandshakeLines).status == 404)
        #expect(try server.handshake("/ws/calc?lang=en", lines: validHandshakeLines).status == 101)
    }

    @Test func metricsCountOpenSessionsAndAppliedKeys() throws {
        let server = try TestServer(webSockets: { _ in })
        defer { server.stop() }
        #expect(try server.metricValue("tombola_calc_sessions_open") == 0)
        #expect(try server.metricValue(#"tombola_calc_keys_applied_total{via="ws"}"#) == 0)
        let client = try CalcTestClient(server: server)
        try client.type("1 + 2 =")
        try client.press("=", seq: 2)
        #expect(try server.metricValue("tombola_calc_sessions_open") == 1)
        #expect(try server.metricValue(#"tombola_calc_keys_applied_total{via="ws"}"#) == 4)
        client.close()
        #expect(try waitUntil { try server.metricValue("tombola_calc_sessions_open") == 0 })
        #expect(try server.metricValue("tombola_calc_sessions_stored") == 1, "kept for a resume")
    }
}
