import Foundation
import Posix
import WebSocketClient
@testable import App
@testable import Server
import TestSupport

/// A `/ws/calc` client for tests: reads frames as JSON objects (decoded by Foundation, not by
/// the server's own reader) and numbers its keys.
final class CalcTestClient {
    let socket: WebSocketClient
    /// The session id of the latest `hello`.
    private(set) var session: String
    /// The greeting's display.
    private(set) var greeting: [String: Any]
    /// The greeting's display frame as sent.
    private(set) var greetingText: String
    var seq = 0

    init(server: TestServer, deflate: Bool = false) throws {
        socket = try server.webSocket(CalcService.webSocketPath, deflate: deflate)
        session = ""
        greeting = [:]
        greetingText = ""
        try readGreeting()
    }

    /// Reads `hello` then `display`.
    func readGreeting() throws {
        let hello = try nextObject()
        guard hello["type"] as? String == "hello", let id = hello["session"] as? String else {
            throw ReaderError(description: "expected hello, got \(hello)")
        }
        session = id
        greetingText = try nextText()
        greeting = try Self.object(greetingText)
        guard greeting["type"] as? String == "display" else { throw ReaderError(description: "expected display, got \(greeting)") }
    }

    func send(_ text: String) throws {
        try socket.send(text: text)
    }

    func send(_ object: [String: Any]) throws {
        try socket.send(text: String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
    }

    /// Sends one key with the next `seq` and returns its `display` reply (checked to echo `seq`).
    @discardableResult
    func press(_ key: String) throws -> [String: Any] {
        seq += 1
        return try press(key, seq: seq)
    }

    @discardableResult
    func press(_ key: String, seq: Int) throws -> [String: Any] {
        try send(["type": "key", "key": key, "seq": seq])
        let reply = try nextObject()
        guard reply["type"] as? String == "display", reply["seq"] as? Int == seq else {
            throw ReaderError(description: "key \(key) seq \(seq): unexpected reply \(reply)")
        }
        return reply
    }

    /// Presses every key of `sequence` (see `calcKeys`) and returns the last display.
    @discardableResult
    func type(_ sequence: String) throws -> [String: Any] {
        var last: [String: Any] = [:]
        for key in calcKeys(sequence) { last = try press(key) }
        return last
    }

    func nextText(timeout: Duration = .seconds(5)) throws -> String {
        switch try socket.receiveMessage(timeout: timeout) {
        case .text(let text): return text
        case let other: throw ReaderError(description: "expected a text frame, got \(other)")
        }
    }

    func nextObject() throws -> [String: Any] {
        try Self.object(try nextText())
    }

    static func object(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw ReaderError(description: "not a JSON object: \(text)")
        }
        return object
    }

    func close() {
        try? socket.close()
    }
}

/// Keys of a space-separated sequence; a number token (`0.1`, `200`) is typed digit by digit.
func calcKeys(_ sequence: String) -> [String] {
    sequence.split(separator: " ").flatMap { token -> [String] in
        let isNumber = token.count > 1 && token.allSatisfy { $0.isNumber || $0 == "." }
        return isNumber ? token.map { String($0) } : [String(token)]
    }
}

extension TestServer {
    /// One request with a body on a fresh connection.
    func post(_ path: String, body: String, method: String = "POST", timeout: Duration = .seconds(5)) throws -> RawResponse {
        let socket = try BlockingSocket(host: "127.0.0.1", port: port, timeout: timeout)
        let bytes = Array(body.utf8)
        try socket.send("\(method) \(path) HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(bytes.count)\r\n\r\n")
        try socket.send(bytes)
        var reader = ResponseReader(socket: socket)
        return try reader.next()
    }
}
