import Glibc
import Posix
import WebSocketCore

/// A small blocking WebSocket client over a plain TCP socket, for tests and the benchmark.
/// Every call waits at most its timeout (poll). One owner at a time; not thread-safe.
public final class WebSocketClient {
    public enum Message: Equatable, Sendable {
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        case pong([UInt8])
        /// The server's close frame (nil code: it carried none).
        case close(code: UInt16?, reason: String)
    }

    public enum ClientError: Error, Equatable, Sendable {
        case resolveFailed(host: String)
        case connectFailed(errno: Int32)
        case timedOut
        case handshakeFailed(WebSocketHandshakeError)
        /// The server broke the protocol; we sent a close frame with this error's code.
        case protocolViolation(WebSocketProtocolError)
        /// The socket closed (or we closed it) with no message left to return.
        case connectionClosed
        case socketError(errno: Int32)
    }

    /// The handshake response (status 101) and its headers.
    public let response: WebSocketClientHandshake.Response
    public var responseHeaders: [(name: String, value: String)] { response.headers }
    /// The negotiated permessage-deflate parameters, nil without the extension.
    public let deflate: PerMessageDeflateParameters?
    public let subprotocol: String?

    private let socket: BlockingSocket
    private var connection: WebSocketConnection
    private var pending: [Message] = []
    private var socketClosed = false

    private init(socket: BlockingSocket, outcome: WebSocketClientHandshake.Outcome, leftover: [UInt8]) {
        self.socket = socket
        response = outcome.response
        deflate = outcome.deflate
        subprotocol = outcome.subprotocol
        connection = WebSocketConnection(
            role: .client,
            configuration: .init(maxMessageSize: 64 << 20, pingInterval: nil, idleTimeout: nil, deflate: outcome.deflate),
            now: .now)
        if !leftover.isEmpty { absorb(connection.receive(leftover, now: .now)) }
    }

    deinit { socket.close() }

    /// Connects, sends the opening handshake and validates the answer.
    public static func connect(
        host: String, port: Int, path: String = "/", headers: [(name: String, value: String)] = [],
        deflate: Bool = false, subprotocols: [String] = [], timeout: Duration = .seconds(5)
    ) throws(ClientError) -> WebSocketClient {
        let deadline = ContinuousClock.now + timeout
        let socket = try BlockingSocket.open(host: host, port: port, deadline: deadline)
        do {
            var nonce = [UInt8](repeating: 0, count: 16)
            var rng = SystemRandomNumberGenerator()
            for index in nonce.indices { nonce[index] = rng.next() }
            let hostHeader = port == 80 ? host : "\(host):\(port)"
            let handshake = WebSocketClientHandshake(host: hostHeader, path: path, headers: headers, deflate: deflate,
                                                     subprotocols: subprotocols, nonce: nonce)
            try socket.write(handshake.request, deadline: deadline)
            var received: [UInt8] = []
            while true {
                let chunk = try socket.read(deadline: deadline)
                guard !chunk.isEmpty else { throw ClientError.connectionClosed }
                received += chunk
                let head: WebSocketClientHandshake.Response?
                do { head = try WebSocketClientHandshake.parseResponseHead(received) } catch { throw ClientError.handshakeFailed(error) }
                guard let head else { continue }
                let outcome: WebSocketClientHandshake.Outcome
                do { outcome = try handshake.validate(head) } catch { throw ClientError.handshakeFailed(error) }
                return WebSocketClient(socket: socket, outcome: outcome, leftover: Array(received[head.headLength...]))
            }
        } catch {
            socket.close()
            throw error as! ClientError
        }
    }

    /// Connects and returns the handshake response even when it is not 101 (for testing refusals).
    public static func handshakeResponse(
        host: String, port: Int, request: [UInt8], timeout: Duration = .seconds(5)
    ) throws(ClientError) -> WebSocketClientHandshake.Response {
        let deadline = ContinuousClock.now + timeout
        let socket = try BlockingSocket.open(host: host, port: port, deadline: deadline)
        defer { socket.close() }
        try socket.write(request, deadline: deadline)
        var received: [UInt8] = []
        while true {
            let chunk = try socket.read(deadline: deadline)
            guard !chunk.isEmpty else { throw .connectionClosed }
            received += chunk
            do {
                if let head = try WebSocketClientHandshake.parseResponseHead(received) { return head }
            } catch {
                throw .handshakeFailed(error)
            }
        }
    }

    public func send(text: String, timeout: Duration = .seconds(5)) throws(ClientError) {
        try perform(connection.send(text: text), timeout: timeout)
    }

    public func send(binary: [UInt8], timeout: Duration = .seconds(5)) throws(ClientError) {
        try perform(connection.send(binary: binary), timeout: timeout)
    }

    /// Writes bytes as they are: crafted frames for protocol tests.
    public func sendRaw(_ bytes: [UInt8], timeout: Duration = .seconds(5)) throws(ClientError) {
        guard !socketClosed else { throw .connectionClosed }
        try socket.write(bytes, deadline: .now + timeout)
    }

    public func ping(_ payload: [UInt8] = [], timeout: Duration = .seconds(5)) throws(ClientError) {
        try perform(connection.sendPing(payload), timeout: timeout)
    }

    /// Sends a close frame; `receive` then returns the server's answering close.
    public func close(code: UInt16 = 1000, reason: String = "", timeout: Duration = .seconds(5)) throws(ClientError) {
        try perform(connection.close(code: WebSocketCloseCode(code), reason: reason, now: .now), timeout: timeout)
    }

    /// The next message, control frames included.
    public func receive(timeout: Duration = .seconds(5)) throws(ClientError) -> Message {
        let deadline = ContinuousClock.now + timeout
        while pending.isEmpty {
            if let failure = connection.failure { throw .protocolViolation(failure) }
            guard !socketClosed else { throw .connectionClosed }
            let chunk = try socket.read(deadline: deadline)
            if chunk.isEmpty {
                socketClosed = true
                continue
            }
            try perform(connection.receive(chunk, now: .now), timeout: timeout)
        }
        return pending.removeFirst()
    }

    /// Whether the server has closed the TCP connection (waits up to `timeout`; reads and
    /// drops anything still arriving).
    public func waitForSocketClose(timeout: Duration = .seconds(5)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !socketClosed {
            guard let chunk = try? socket.read(deadline: deadline) else { return false }
            if chunk.isEmpty { socketClosed = true }
        }
        return true
    }

    private func perform(_ actions: [WebSocketConnection.Action], timeout: Duration) throws(ClientError) {
        let deadline = ContinuousClock.now + timeout
        for action in actions {
            switch action {
            case .write(let bytes):
                guard !socketClosed else { continue }
                do { try socket.write(bytes, deadline: deadline) } catch { socketClosed = true }
            default:
                absorb([action])
            }
        }
    }

    private func absorb(_ actions: [WebSocketConnection.Action]) {
        for action in actions {
            switch action {
            case .write(let bytes): if !socketClosed { try? socket.write(bytes, deadline: .now + .seconds(5)) }
            case .deliverText(let text): pending.append(.text(text))
            case .deliverBinary(let bytes): pending.append(.binary(bytes))
            case .deliverPing(let payload): pending.append(.ping(payload))
            case .deliverPong(let payload): pending.append(.pong(payload))
            case .deliverClose(let code, let reason): pending.append(.close(code: code?.rawValue, reason: reason))
            case .closeAfterWrite, .closeNow: break  // the server closes TCP first (RFC 6455 §7.1.1)
            }
        }
    }
}

/// The client's view of Posix's socket: its errors as `ClientError`, a reset as end of stream.
private extension BlockingSocket {
    static func open(host: String, port: Int, deadline: ContinuousClock.Instant) throws(WebSocketClient.ClientError) -> BlockingSocket {
        do {
            return try BlockingSocket(host: host, port: port, deadline: deadline)
        } catch {
            if error.code == ETIMEDOUT { throw .timedOut }
            if error.call.hasPrefix("inet_pton") { throw .resolveFailed(host: host) }
            throw .connectFailed(errno: error.code)
        }
    }

    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(WebSocketClient.ClientError) {
        do { try send(bytes, deadline: deadline) } catch { throw error.code == ETIMEDOUT ? .timedOut : .socketError(errno: error.code) }
    }

    /// Up to 64 KiB; empty when the peer closed (or reset).
    func read(deadline: ContinuousClock.Instant) throws(WebSocketClient.ClientError) -> [UInt8] {
        do {
            return try receive(deadline: deadline)
        } catch {
            if error.code == ECONNRESET { return [] }
            throw error.code == ETIMEDOUT ? .timedOut : .socketError(errno: error.code)
        }
    }
}
