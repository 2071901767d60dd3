import Testing
import WebSocketClient
import WebSocketCore
@testable import Server
import TestSupport

@Suite struct WebSocketEchoTests {
    private func echoServer() throws -> TestServer {
        try TestServer(echo: true)
    }

    @Test(arguments: [false, true])
    func echoesTextAndBinary(_ deflate: Bool) throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = try server.webSocket(deflate: deflate)
        try client.send(text: "Hello, 抽奖")
        #expect(try client.receiveMessage() == .text("Hello, 抽奖"))
        try client.send(binary: [0, 1, 2, 255])
        #expect(try client.receiveMessage() == .binary([0, 1, 2, 255]))
        try client.send(text: "")
        #expect(try client.receiveMessage() == .text(""))
    }

    @Test(arguments: [false, true])
    func echoesLargeMessages(_ deflate: Bool) throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = try server.webSocket(deflate: deflate)
        let text = String(repeating: "Tombola rolls the numbers 0123456789. ", count: 50_000)  // ~1.9 MB
        try client.send(text: text, timeout: .seconds(20))
        #expect(try client.receiveMessage(timeout: .seconds(20)) == .text(text))
        var generator = SplitMix(seed: 7)
        let binary = (0..<3_000_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        try client.send(binary: binary, timeout: .seconds(20))
        #expect(try client.receiveMessage(timeout: .seconds(20)) == .binary(binary))
    }

    @Test func reassemblesFragmentsWithAPingInBetween() throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = try server.webSocket()
        try client.sendRaw(clientFrame(.text, Array("Hel".utf8), fin: false) + clientFrame(.ping, [9])
                           + clientFrame(.continuation, Array("lo".utf8)))
        #expect(try client.receive() == .pong([9]))
        #expect(try client.receive() == .text("Hello"))
    }

    @Test func answersAPingWithAPong() throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = try server.webSocket()
        try client.ping([1, 2, 3])
        #expect(try client.receive() == .pong([1, 2, 3]))
    }

    @Test(arguments: [UInt16(1000), 1001, 3001, 4999])
    func echoesAValidCloseCodeAndClosesTheSocket(_ code: UInt16) throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = try server.webSocket()
        try client.close(code: code, reason: "bye")
        #expect(try client.receive() == .close(code: code, reason: ""))
        #expect(client.waitForSocketClose())
    }

    @Test(arguments: [
        (clientFrame(.text, [0xC3, 0x28]), UInt16(1007)),
        (clientFrame(.text, [0xE2, 0x82], fin: false) + clientFrame(.continuation, [0x28]), 1007),
        (clientFrame(.text, Array("x".utf8), masked: false), 1002),
        (clientFrame(.close, [0x03, 0xED]), 1002),  // 1005 may not be sent
        (clientFrame(.binary, [1], rsv1: true), 1002),  // RSV1 without permessage-deflate
        ([0x83, 0x80, 1, 2, 3, 4], 1002),  // reserved opcode
        // A header announcing 16 MiB + 1: refused before any payload arrives.
        ([0x82, 0xFF, 0, 0, 0, 0, 0x01, 0x00, 0x00, 0x01, 1, 2, 3, 4], 1009),
    ] as [([UInt8], UInt16)])
    func failsTheConnectionWithTheRightCloseCode(_ bytes: [UInt8], _ code: UInt16) throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = try server.webSocket()
        try client.sendRaw(bytes)
        #expect(try client.receiveCloseCode() == code)
        #expect(client.waitForSocketClose())
    }

    @Test func acceptsAMessageOfExactly16MiB() throws {
        let server = try echoServer()
        defer { server.stop() }
        let client = try server.webSocket()
        let binary = [UInt8](repeating: 0x5A, count: 16 << 20)
        try client.send(binary: binary, timeout: .seconds(30))
        #expect(try client.receiveMessage(timeout: .seconds(30)) == .binary(binary))
    }
}
