import Glibc
import HTTPCore
import Posix
import Server
import WebSocketClient
import WebSocketCore

extension TestServer {
    public func webSocket(_ path: String = "/ws/echo", deflate: Bool = false,
                   headers: [(name: String, value: String)] = []) throws -> WebSocketClient {
        try WebSocketClient.connect(host: "127.0.0.1", port: port, path: path, headers: headers, deflate: deflate)
    }

    /// Sends a raw handshake request and returns the response head, whatever its status.
    public func handshake(_ path: String = "/ws/echo", lines: [String]) throws -> WebSocketClientHandshake.Response {
        let request = "GET \(path) HTTP/1.1\r\n" + lines.map { $0 + "\r\n" }.joined() + "\r\n"
        return try WebSocketClient.handshakeResponse(host: "127.0.0.1", port: port, request: Array(request.utf8))
    }

    public func metricValue(_ series: String) throws -> Int? {
        let text = try get("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Int(line.dropFirst(series.count + 1))
        }
        return nil
    }
}

/// A valid handshake's request lines, to vary one at a time.
public let validHandshakeLines = [
    "Host: 127.0.0.1", "Upgrade: websocket", "Connection: Upgrade",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
]

extension WebSocketClient {
    /// The next data or close message, skipping pings and pongs.
    public func receiveMessage(timeout: Duration = .seconds(5)) throws -> Message {
        while true {
            let message = try receive(timeout: timeout)
            switch message {
            case .ping, .pong: continue
            default: return message
            }
        }
    }

    /// The server's close code, skipping whatever data still arrives before it.
    public func receiveCloseCode(timeout: Duration = .seconds(10)) throws -> UInt16? {
        while true {
            if case .close(let code, _) = try receive(timeout: timeout) { return code }
        }
    }
}

/// A masked client frame, for protocol tests that craft their own bytes.
public func clientFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false,
                 masked: Bool = true) -> [UInt8] {
    WebSocketFrameEncoder.encode(opcode: opcode, fin: fin, rsv1: rsv1, payload: payload,
                                 maskKey: masked ? (0x12, 0x34, 0x56, 0x78) : nil)
}

/// Polls `condition` every 5 ms until it holds or `timeout` passes.
public func waitUntil(timeout: Duration = .seconds(5), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        usleep(5_000)  // poll interval
    }
    return try condition()
}

/// SplitMix64, for reproducible test data.
public struct SplitMix: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
