import DrawEngine
import Glibc
import RoomTestSupport
import Testing
import WebSocketClient
import WebSocketCore
@testable import App
import TestSupport

/// Promises kept exactly: messages handled in order before a failure, an answer to every frame
/// a client can send, and live pages told everything a reload would show.
@Suite("Strict order and small promises", .serialized)
struct StrictnessTests {
    /// RSV2 set on an empty text frame: a protocol error (Autobahn 3.2).
    static let invalidFrame = clientFrame(.text, [], rsv1: false).enumerated().map { $0.offset == 0 ? $0.element | 0x20 : $0.element }

    @Test func theEchoAnswersAValidMessageBeforeFailingOnTheInvalidFrameAfterIt() throws {
        let server = try TestServer(webSockets: { $0.echoEndpoint = true })
        defer { server.stop() }
        let client = try server.webSocket()
        // One write, so both frames reach the server in one read.
        try client.sendRaw(clientFrame(.text, Array("Hello".utf8)) + Self.invalidFrame + clientFrame(.ping, []))
        #expect(try client.receiveMessage() == .text("Hello"))
        #expect(try client.receiveMessage() == .close(code: 1002, reason: ""))
    }

    @Test func aDrawRoomAppliesAValidCommandThatPrecedesAnInvalidFrame() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let host = try server.host()
        try host.sendRaw(clientFrame(.text, Array(#"{"type":"start","seq":1}"#.utf8)) + Self.invalidFrame)
        #expect(try host.receiveCloseCode() == 1002)
        // The room runs on its own loop, so its ack may come after the failure closed the
        // socket; the command itself was applied.
        let deadline = ContinuousClock.now + .seconds(5)
        while try server.state()["phase"]?.stringValue != "rolling", ContinuousClock.now < deadline {
            usleep(20_000)
        }
        #expect(try server.state()["phase"]?.stringValue == "rolling")
    }

    @Test func aBinaryFrameOnADrawSocketGetsAnErrorAndChangesNothing() throws {
        let server = try DrawTestServer()
        defer { server.stop() }
        let host = try server.host()
        try host.send(binary: Array(#"{"type":"start","seq":1}"#.utf8))
        let error = try host.nextEvent()
        #expect(error["type"]?.stringValue == "error")
        #expect(error["code"]?.stringValue == "bad_json")
        #expect(error["message"]?.stringValue?.isEmpty == false)
        #expect(try server.state()["phase"]?.stringValue == "idle")
        // The socket stays open and usable.
        try host.send(text: #"{"type":"start","seq":2}"#)
        #expect(try host.next(type: "ack")["seq"]?.intValue == 2)
    }

    @Test func aReplacementResultCarriesTheVoidReasonToLiveViewers() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(100))
        defer { server.stop() }
        let viewer = try server.connect()
        _ = try viewer.next(type: "state")
        let host = try server.host()
        try host.send(text: #"{"type":"start","seq":1}"#)
        try host.send(text: #"{"type":"stop","seq":2}"#)
        let first = try viewer.next(type: "result")
        #expect(first["voidReason"] == nil)
        let winner = try #require(first["winners"]?.arrayValue?.first)

        let reason = "did not come forward, 未到场"
        try host.send(text: #"{"type":"void","seq":3,"round":1,"winner":\#(winner.canonicalString),"reason":"\#(reason)"}"#)
        let replacement = try viewer.next(type: "result")
        #expect(replacement["replaces"]?["winner"] == winner)
        #expect(replacement["voidReason"]?.stringValue == reason)
        // The reason is not part of the round record: the message without the fields a
        // message adds still hashes to the record's hash, as pages recheck it.
        guard case .object(var members) = replacement else { throw TestFailure("result is not an object") }
        for added in ["type", "contributors", "voidReason"] { members[added] = nil }
        let record = try DrawRecord(json: .object(members))
        #expect(record.computedHash == replacement["hash"]?.stringValue)
    }
}
