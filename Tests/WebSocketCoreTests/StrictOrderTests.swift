import Testing
@testable import WebSocketCore

/// A valid message followed by an invalid frame in one read: the owner answers the message
/// before the connection fails (Autobahn|Testsuite's strict order, cases 3.2, 4.1.3, 5.15).
@Suite struct StrictOrderTests {
    let start = ContinuousClock.now

    /// Runs `bytes` through a server connection the way an echo owner does: a message at a
    /// time, each echoed at once. Returns every action in the order the owner executed them.
    func echo(_ bytes: [UInt8]) -> [WebSocketConnection.Action] {
        var connection = WebSocketConnection(role: .server, now: start)
        var executed: [WebSocketConnection.Action] = []
        var actions = connection.receiveMessage(bytes, now: start)
        while true {
            for action in actions {
                executed.append(action)
                if case .deliverText(let text) = action { executed += connection.send(text: text) }
                if case .deliverBinary(let payload) = action { executed += connection.send(binary: payload) }
            }
            guard connection.hasUnhandledFrames else { break }
            actions = connection.receiveMessage(EmptyCollection<UInt8>(), now: start)
        }
        return executed
    }

    static let invalidFrames: [(String, [UInt8])] = [
        ("reserved bit RSV2 (3.2)", hex("a1 80 00 00 00 00")),
        ("reserved opcode (4.1.3)", [0x83, 0x80, 0x37, 0xFA, 0x21, 0x3D]),
        ("continuation without a start (5.15 shape)", clientFrame(.continuation, "fragment")),
        ("unmasked frame", hex("81 02 68 69")),
    ]

    @Test(arguments: invalidFrames)
    func echoesAValidMessageBeforeFailingOnTheFrameAfterIt(name: String, invalid: [UInt8]) {
        let actions = echo(clientFrame(.text, "Hello") + invalid + clientFrame(.ping, []))
        let frames = serverFrames(in: actions)
        #expect(frames.map(\.opcode) == [.text, .close], "\(name)")
        #expect(frames.first?.payload == Array("Hello".utf8), "\(name)")
        #expect(sentCloseCode(actions) == 1002, "\(name)")
        #expect(actions.last == .closeAfterWrite, "\(name)")
    }

    @Test func answersEachMessageOfOneReadBeforeHandlingTheNext() {
        let stream = clientFrame(.text, "one") + clientFrame(.binary, [2]) + clientFrame(.ping, Array("p".utf8))
            + clientFrame(.text, "three")
        let frames = serverFrames(in: echo(stream))
        #expect(frames.map(\.opcode) == [.text, .binary, .pong, .text])
        #expect(frames.map(\.payload) == [Array("one".utf8), [2], Array("p".utf8), Array("three".utf8)])
    }

    @Test func stopsAfterEachMessageAndSaysWhetherFramesAreLeft() {
        var connection = WebSocketConnection(role: .server, now: start)
        let first = connection.receiveMessage(clientFrame(.text, "a") + clientFrame(.text, "b"), now: start)
        #expect(first == [.deliverText("a")])
        #expect(connection.hasUnhandledFrames)
        #expect(connection.receiveMessage(EmptyCollection<UInt8>(), now: start) == [.deliverText("b")])
        #expect(connection.hasUnhandledFrames)
        #expect(connection.receiveMessage(EmptyCollection<UInt8>(), now: start) == [])
        #expect(!connection.hasUnhandledFrames)
    }

    @Test func receiveStillHandlesEveryFrameOfARead() {
        var connection = WebSocketConnection(role: .server, now: start)
        let actions = connection.receive(clientFrame(.text, "a") + clientFrame(.text, "b"), now: start)
        #expect(actions == [.deliverText("a"), .deliverText("b")])
        #expect(!connection.hasUnhandledFrames)
    }

    @Test func aFragmentedMessageIsAnsweredBeforeAnInvalidFrame() {
        let stream = clientFrame(.text, "frag", fin: false) + clientFrame(.continuation, "ment") + hex("8b 80 00 00 00 00")
        let actions = echo(stream)
        let frames = serverFrames(in: actions)
        #expect(frames.map(\.opcode) == [.text, .close])
        #expect(frames.first?.payload == Array("fragment".utf8))
    }
}
