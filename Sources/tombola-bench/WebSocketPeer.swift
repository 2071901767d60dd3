import Posix
import WebSocketCore

/// Why a peer's connection ended.
enum PeerCloseReason: Sendable {
    case connectFailed(POSIXError)
    /// The server refused the upgrade (`status`, when it answered with one) or broke the handshake.
    case handshakeFailed(status: Int?)
    /// No 101 within the plan's handshake timeout.
    case handshakeTimedOut
    /// The server sent a close frame (nil code: it carried none).
    case closedByServer(code: UInt16?)
    /// The socket ended without a close frame.
    case socketClosed(POSIXError?)
    case closedByUs
}

/// What a peer's owner hears, on the peer's loop.
protocol WebSocketPeerDelegate: AnyObject {
    func peerDidOpen(_ peer: WebSocketPeer)
    /// One complete text message. `bytes` is valid only during the call; `receivedAt` is the
    /// wall clock (Unix ms) of the read that completed it.
    func peer(_ peer: WebSocketPeer, receivedText bytes: UnsafeRawBufferPointer, receivedAt: Double)
    func peerDidClose(_ peer: WebSocketPeer, reason: PeerCloseReason)
}

/// The client side of one WebSocket on an `EventLoop`: the opening handshake from
/// `WebSocketClientHandshake`, then frames.
///
/// The hot path reads whole unfragmented, uncompressed text frames straight from the loop's
/// read buffer and hands their payload to the delegate: no copy, no allocation, which is what
/// lets one thread take a few hundred thousand ticks a second. A whole compressed message goes
/// to the loop's `SharedInflater` when the server compresses without context takeover (as
/// Tombola and gorilla/websocket do). Every other frame (control frames, fragments) goes whole
/// to the client-role `WebSocketConnection`, which also masks everything we send.
final class WebSocketPeer: ConnectionHandler {
    /// Frames larger than this fail the connection (the server never sends such).
    static let maxFrameSize = 16 << 20

    let index: Int
    unowned let delegate: WebSocketPeerDelegate
    private(set) var connection: TCPConnection?
    private var handshake: WebSocketClientHandshake?
    private var handshakeBuffer: [UInt8] = []
    private var codec: WebSocketConnection?
    /// The start of a frame that straddles reads.
    private var carry: [UInt8] = []
    private(set) var isOpen = false
    /// Whether the handshake ever completed (stays true after the close).
    private(set) var wasOpened = false
    private var serverCloseCode: UInt16??
    private var closingByUs = false
    private var handshakeFailed = false
    private var handshakeStatus: Int?
    private var handshakeTimedOut = false
    private var closeTimer: ScheduledTimer?
    /// What permessage-deflate the handshake settled (nil: none).
    private(set) var negotiatedDeflate: PerMessageDeflateParameters?
    /// The loop's shared inflater, when the server compresses without context takeover.
    private var inflater: SharedInflater?
    /// Compressed messages this peer received.
    private(set) var compressedMessages = 0

    init(index: Int, delegate: WebSocketPeerDelegate) {
        self.index = index
        self.delegate = delegate
    }

    /// Connects and sends the opening handshake (RFC 6455 §4.1). Call on `loop`'s thread.
    func start(remote: SocketAddress, source: SocketAddress?, hostHeader: String, path: String, deflate: Bool,
               on loop: EventLoop, nonce: [UInt8], timeout: Duration) {
        let handshake = WebSocketClientHandshake(host: hostHeader, path: path, deflate: deflate, nonce: nonce)
        self.handshake = handshake
        do {
            let connection = try TCPConnection.connect(to: remote, from: source, on: loop, handler: self)
            self.connection = connection
            connection.write(handshake.request)
            // Strong captures: a weak reference would give every peer a side table and slow each
            // retain on the hot path; the loop drops the closure when the timer fires or is cancelled.
            closeTimer = loop.scheduleTimer(after: timeout) {
                guard !self.wasOpened else { return }
                self.handshakeTimedOut = true
                self.connection?.closeNow()
            }
        } catch {
            delegate.peerDidClose(self, reason: .connectFailed(error))
        }
    }

    /// Sends one text message (masked, as a client must).
    func send(text: String) {
        guard var codec, isOpen else { return }
        let actions = codec.send(text: text)
        self.codec = codec
        perform(actions)
    }

    /// Starts the closing handshake; drops the socket if the server has not answered within `grace`.
    func close(grace: Duration = .seconds(2)) {
        guard let connection, !connection.isClosed else { return }
        closingByUs = true
        guard var codec, isOpen else {
            connection.closeNow()
            return
        }
        let actions = codec.close(now: .now)
        self.codec = codec
        perform(actions)
        closeTimer = connection.loop.scheduleTimer(after: grace) { self.connection?.closeNow() }
    }

    // MARK: ConnectionHandler

    func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
        let receivedAt = WallClock.unixMilliseconds()
        guard isOpen else {
            receiveHandshake(bytes, on: connection, receivedAt: receivedAt)
            return
        }
        if carry.isEmpty {
            let consumed = consumeFrames(bytes, receivedAt: receivedAt)
            if consumed < bytes.count, !connection.isClosed {
                carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
            }
        } else {
            carry.append(contentsOf: bytes)
            let consumed = carry.withUnsafeBytes { consumeFrames($0, receivedAt: receivedAt) }
            if consumed == carry.count {
                carry.removeAll(keepingCapacity: carry.capacity <= 64 * 1024)
            } else {
                carry.removeFirst(consumed)
            }
        }
    }

    func closed(_ connection: TCPConnection, error: POSIXError?) {
        closeTimer?.cancel()
        closeTimer = nil
        let wasOpen = isOpen
        isOpen = false
        let reason: PeerCloseReason
        if handshakeTimedOut {
            reason = .handshakeTimedOut
        } else if closingByUs {
            reason = .closedByUs
        } else if !wasOpen {
            reason = handshakeFailed ? .handshakeFailed(status: handshakeStatus) : error.map { .connectFailed($0) } ?? .socketClosed(nil)
        } else if let code = serverCloseCode {
            reason = .closedByServer(code: code)
        } else {
            reason = .socketClosed(error)
        }
        codec = nil
        carry = []
        delegate.peerDidClose(self, reason: reason)
    }

    // MARK: Handshake

    private func receiveHandshake(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection, receivedAt: Double) {
        guard let handshake else { return }
        handshakeBuffer.append(contentsOf: bytes)
        let outcome: WebSocketClientHandshake.Outcome
        do {
            guard let head = try WebSocketClientHandshake.parseResponseHead(handshakeBuffer) else { return }
            handshakeStatus = head.status
            outcome = try handshake.validate(head)
        } catch {
            handshakeFailed = true
            connection.closeNow()
            return
        }
        closeTimer?.cancel()
        closeTimer = nil
        codec = WebSocketConnection(
            role: .client,
            configuration: .init(maxMessageSize: Self.maxFrameSize, pingInterval: nil, idleTimeout: nil,
                                 deflate: outcome.deflate),
            now: .now)
        negotiatedDeflate = outcome.deflate
        if let deflate = outcome.deflate, deflate.serverNoContextTakeover { inflater = SharedInflater.forLoop(connection.loop) }
        let leftover = Array(handshakeBuffer[outcome.response.headLength...])
        handshakeBuffer = []
        self.handshake = nil
        isOpen = true
        wasOpened = true
        delegate.peerDidOpen(self)
        if !leftover.isEmpty, !connection.isClosed {
            carry = leftover
            let consumed = carry.withUnsafeBytes { consumeFrames($0, receivedAt: receivedAt) }
            carry.removeFirst(consumed)
        }
    }

    // MARK: Frames

    /// Handles every complete frame at the start of `bytes`; returns the bytes used.
    private func consumeFrames(_ bytes: UnsafeRawBufferPointer, receivedAt: Double) -> Int {
        var offset = 0
        while let connection, !connection.isClosed {
            let available = bytes.count - offset
            guard available >= 2 else { break }
            let first = bytes[offset]
            let second = bytes[offset + 1]
            var length = Int(second & 0x7F)
            var header = 2
            if length == 126 {
                guard available >= 4 else { break }
                length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                header = 4
            } else if length == 127 {
                guard available >= 10 else { break }
                var value: UInt64 = 0
                for i in 2..<10 { value = value << 8 | UInt64(bytes[offset + i]) }
                length = value > UInt64(Self.maxFrameSize) ? Self.maxFrameSize + 1 : Int(value)
                header = 10
            }
            // RFC 6455 §5.1: a server never masks; the codec fails such a frame with 1002.
            if second & 0x80 != 0 { header += 4 }
            if length > Self.maxFrameSize {
                handToCodec(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + header)]), receivedAt: receivedAt)
                connection.closeNow()
                break
            }
            guard available >= header + length else { break }
            // FIN + text, no RSV bits, unmasked: the hot path.
            if first == 0x81 && second & 0x80 == 0 {
                delegate.peer(self, receivedText: UnsafeRawBufferPointer(rebasing: bytes[(offset + header)..<(offset + header + length)]),
                              receivedAt: receivedAt)
            } else if first == 0xC1 && second & 0x80 == 0, let inflater {
                // FIN + RSV1 + text: a whole compressed message, inflated by the loop's stream.
                compressedMessages += 1
                let payload = UnsafeRawBufferPointer(rebasing: bytes[(offset + header)..<(offset + header + length)])
                let inflated = inflater.inflate(payload, limit: Self.maxFrameSize) { text in
                    delegate.peer(self, receivedText: text, receivedAt: receivedAt)
                }
                if !inflated {
                    connection.closeNow()
                    break
                }
            } else {
                handToCodec(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + header + length)]), receivedAt: receivedAt)
            }
            offset += header + length
        }
        return offset
    }

    private func handToCodec(_ frame: UnsafeRawBufferPointer, receivedAt: Double) {
        guard var codec else { return }
        let actions = codec.receive(frame, now: .now)
        self.codec = codec
        perform(actions, receivedAt: receivedAt)
    }

    private func perform(_ actions: [WebSocketConnection.Action], receivedAt: Double = 0) {
        guard let connection else { return }
        for action in actions {
            switch action {
            case .write(let bytes):
                connection.write(bytes)
            case .deliverText(var text):
                text.withUTF8 { utf8 in
                    delegate.peer(self, receivedText: UnsafeRawBufferPointer(utf8), receivedAt: receivedAt)
                }
            case .deliverClose(let code, _):
                serverCloseCode = .some(code?.rawValue)
            case .closeAfterWrite:
                connection.close()
            case .closeNow:
                connection.closeNow()
            case .deliverBinary, .deliverPing, .deliverPong:
                break
            }
        }
    }
}
