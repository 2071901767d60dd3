import Compression

/// One WebSocket connection's protocol behaviour (RFC 6455, RFC 7692) as a value: bytes and
/// time go in, actions come out. No sockets, no clocks: the owner executes the actions and
/// calls `tick(now:)` at `nextDeadline`.
///
/// Holds zlib streams (reference types) while a compressed message is in flight, so a copy
/// shares them: keep one owner, confined to one thread.
public struct WebSocketConnection {
    public struct Configuration: Sendable {
        /// Largest message, after inflating (RFC 6455 §10.4); larger closes with 1009.
        public var maxMessageSize: Int
        /// Send a ping when the peer has been silent this long; nil disables pings.
        public var pingInterval: Duration?
        /// Drop a peer silent this long; nil never drops.
        public var idleTimeout: Duration?
        /// After we send a close frame, wait this long for the peer's.
        public var closeTimeout: Duration
        /// The negotiated permessage-deflate parameters, nil without the extension.
        public var deflate: PerMessageDeflateParameters?
        /// Messages shorter than this are sent uncompressed.
        public var compressionThreshold: Int
        public var compressionLevel: Int
        public var memoryLevel: Int

        public init(maxMessageSize: Int = 1 << 20, pingInterval: Duration? = .seconds(20),
                    idleTimeout: Duration? = .seconds(60), closeTimeout: Duration = .seconds(5),
                    deflate: PerMessageDeflateParameters? = nil, compressionThreshold: Int = 256,
                    compressionLevel: Int = 6, memoryLevel: Int = 8) {
            self.maxMessageSize = maxMessageSize
            self.pingInterval = pingInterval
            self.idleTimeout = idleTimeout
            self.closeTimeout = closeTimeout
            self.deflate = deflate
            self.compressionThreshold = compressionThreshold
            self.compressionLevel = compressionLevel
            self.memoryLevel = memoryLevel
        }
    }

    public enum Action: Sendable, Equatable {
        /// Queue these bytes for the socket.
        case write([UInt8])
        case deliverText(String)
        case deliverBinary([UInt8])
        /// The peer pinged (the pong is already in a `.write`).
        case deliverPing([UInt8])
        case deliverPong([UInt8])
        /// The peer sent a close frame (nil code: it carried none).
        case deliverClose(code: WebSocketCloseCode?, reason: String)
        /// Flush what is queued, then close the socket.
        case closeAfterWrite
        /// Close the socket now, dropping anything queued.
        case closeNow
    }

    public enum State: Sendable, Equatable {
        case open
        /// We sent a close frame and wait for the peer's (RFC 6455 §7.1.2).
        case closing
        case closed
    }

    public let role: WebSocketRole
    public let configuration: Configuration
    public private(set) var state: State = .open
    /// Why we failed the connection, if we did.
    public private(set) var failure: WebSocketProtocolError?

    private var parser: WebSocketFrameParser
    private var lastReceived: ContinuousClock.Instant
    private var lastPing: ContinuousClock.Instant?
    private var closeDeadline: ContinuousClock.Instant?
    private var maskState: UInt64

    // The message being reassembled.
    private var messageOpcode: WebSocketOpcode?
    private var messageCompressed = false
    private var message: [UInt8] = []
    private var utf8 = UTF8Validator()
    /// Bytes of the current, still incomplete text frame already run through `utf8`.
    private var validatedFramePrefix = 0

    private var inflater: InflateStream?
    private var deflater: DeflateStream?

    /// - Parameter maskingSeed: seeds the client's masking keys (RFC 6455 §5.3).
    public init(role: WebSocketRole, configuration: Configuration = Configuration(), now: ContinuousClock.Instant,
                maskingSeed: UInt64 = UInt64.random(in: .min ... .max)) {
        self.role = role
        self.configuration = configuration
        parser = WebSocketFrameParser(role: role, maxMessageSize: configuration.maxMessageSize,
                                      allowsCompressedMessages: configuration.deflate != nil)
        lastReceived = now
        maskState = maskingSeed
    }

    // MARK: Input

    /// Feeds bytes read from the socket and handles every complete frame in them.
    ///
    /// The actions of all frames come back at once, so an answer the owner gives to a message
    /// goes out after whatever later frames of the same read caused (a failure's close frame).
    /// An owner that answers messages uses `receiveMessage(_:now:)` instead.
    public mutating func receive(_ bytes: some Sequence<UInt8>, now: ContinuousClock.Instant) -> [Action] {
        var actions = receiveMessage(bytes, now: now)
        while hasUnhandledFrames { actions += receiveMessage(EmptyCollection<UInt8>(), now: now) }
        return actions
    }

    /// Whether `receiveMessage` stopped after a message with bytes still buffered: call it
    /// again (with no new bytes) once that message's actions are executed.
    public private(set) var hasUnhandledFrames = false

    /// Feeds bytes read from the socket and handles frames up to the first complete message
    /// (its `deliverText`/`deliverBinary` ends the actions); `hasUnhandledFrames` then says
    /// whether to call again with no new bytes. The owner answers each message before the
    /// following frames are handled, so a valid message followed by an invalid frame in one
    /// read is answered (echoed, applied) before the connection fails: the strict order
    /// Autobahn|Testsuite checks (cases 3.2, 4.1.3, 5.15, …).
    public mutating func receiveMessage(_ bytes: some Sequence<UInt8>, now: ContinuousClock.Instant) -> [Action] {
        hasUnhandledFrames = false
        guard state != .closed else { return [] }
        lastReceived = now
        parser.append(bytes)
        var actions: [Action] = []
        while state != .closed {
            do throws(WebSocketProtocolError) {
                guard let frame = try parser.next() else {
                    try validatePartialText()
                    break
                }
                if try handle(frame, now: now, into: &actions) {
                    hasUnhandledFrames = state != .closed
                    break
                }
            } catch {
                fail(error, into: &actions)
            }
        }
        return actions
    }

    /// Handles one frame; returns whether it completed a message.
    private mutating func handle(_ frame: WebSocketFrame, now: ContinuousClock.Instant,
                                 into actions: inout [Action]) throws(WebSocketProtocolError) -> Bool {
        switch frame.opcode {
        case .ping:
            guard state == .open else { return false }
            actions.append(.write(encode(.pong, payload: frame.payload)))
            actions.append(.deliverPing(frame.payload))
        case .pong:
            actions.append(.deliverPong(frame.payload))
        case .close:
            try handleClose(frame.payload, into: &actions)
        case .text, .binary, .continuation:
            if frame.opcode != .continuation {
                messageOpcode = frame.opcode
                messageCompressed = frame.rsv1
                if validatedFramePrefix == 0 { utf8 = UTF8Validator() }
            }
            try appendToMessage(frame.payload, fin: frame.fin)
            if frame.fin {
                finishMessage(into: &actions)
                return true
            }
        }
        return false
    }

    private mutating func appendToMessage(_ payload: [UInt8], fin: Bool) throws(WebSocketProtocolError) {
        let start = message.count
        if messageCompressed {
            do {
                if inflater == nil { inflater = try InflateStream(windowBits: 15) }
                if fin {
                    try inflater!.inflateMessageEnd(payload, into: &message, limit: configuration.maxMessageSize)
                } else {
                    try inflater!.inflate(payload, into: &message, limit: configuration.maxMessageSize)
                }
            } catch {
                inflater = nil
                if case .outputLimitExceeded = error { throw .messageTooBig }
                throw .invalidCompressedData
            }
        } else if message.isEmpty {
            message = payload
        } else {
            message.append(contentsOf: payload)
        }
        if messageOpcode == .text {
            // Fail fast: check each fragment as it arrives (RFC 6455 §8.1).
            let unchecked = messageCompressed ? start : start + validatedFramePrefix
            validatedFramePrefix = 0
            guard utf8.validate(message[unchecked...]) else { throw .invalidUTF8 }
            if fin { guard utf8.isComplete else { throw .invalidUTF8 } }
        }
    }

    /// Validates the arrived part of an uncompressed text frame before the frame completes, so
    /// invalid text fails as soon as its first bad byte is in (Autobahn's strict "fail fast").
    private mutating func validatePartialText() throws(WebSocketProtocolError) {
        // Only uncompressed text is checked early; copying other partial frames on every read
        // would make a large binary message cost quadratic time.
        guard state == .open, let header = parser.partialFrameHeader, !header.rsv1,
              header.opcode == .text || (header.opcode == .continuation && messageOpcode == .text && !messageCompressed),
              let partial = parser.partialPayload(from: validatedFramePrefix) else { return }
        switch partial.opcode {
        case .text where !partial.rsv1:
            if validatedFramePrefix == 0 { utf8 = UTF8Validator() }
        case .continuation where messageOpcode == .text && !messageCompressed:
            break
        default:
            return
        }
        guard !partial.bytes.isEmpty else { return }
        guard utf8.validate(partial.bytes) else { throw .invalidUTF8 }
        validatedFramePrefix += partial.bytes.count
    }

    private mutating func finishMessage(into actions: inout [Action]) {
        let payload = message
        message = []
        if state == .open {
            if messageOpcode == .text {
                actions.append(.deliverText(String(decoding: payload, as: UTF8.self)))
            } else {
                actions.append(.deliverBinary(payload))
            }
        }
        if messageCompressed, configuration.deflate?.receivesWithoutContextTakeover(as: role) ?? true {
            inflater = nil  // no history to keep, so keep no zlib memory between messages
        }
        messageOpcode = nil
        messageCompressed = false
    }

    // RFC 6455 §5.5.1, §7.1.5, §7.4.
    private mutating func handleClose(_ payload: [UInt8], into actions: inout [Action]) throws(WebSocketProtocolError) {
        var code: WebSocketCloseCode?
        var reason = ""
        if payload.count == 1 { throw .invalidClosePayload }
        if payload.count >= 2 {
            let value = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
            guard value.isValidOnWire else { throw .invalidCloseCode(value.rawValue) }
            let reasonBytes = payload[2...]
            guard UTF8Validator.isValid(reasonBytes) else { throw .invalidUTF8 }
            code = value
            reason = String(decoding: reasonBytes, as: UTF8.self)
        }
        actions.append(.deliverClose(code: code, reason: reason))
        if state == .open {
            actions.append(.write(encode(.close, payload: WebSocketFrameEncoder.closePayload(code: code))))
        }
        state = .closed
        releaseStreams()
        actions.append(.closeAfterWrite)
    }

    /// Fail the WebSocket connection (RFC 6455 §7.1.7): send our close frame if we have not
    /// yet, then close the socket.
    private mutating func fail(_ error: WebSocketProtocolError, into actions: inout [Action]) {
        failure = error
        if state == .open {
            actions.append(.write(encode(.close, payload: WebSocketFrameEncoder.closePayload(code: error.closeCode))))
        }
        state = .closed
        releaseStreams()
        actions.append(.closeAfterWrite)
    }

    private mutating func releaseStreams() {
        inflater = nil
        deflater = nil
        message = []
    }

    // MARK: Output

    public mutating func send(text: String) -> [Action] {
        sendMessage(.text, Array(text.utf8))
    }

    public mutating func send(binary: [UInt8]) -> [Action] {
        sendMessage(.binary, binary)
    }

    /// Sends a frame built once for many connections (server role): the shared compressed
    /// variant when this peer takes compression and the message is large enough.
    public mutating func send(_ broadcast: BroadcastFrame) -> [Action] {
        guard state == .open else { return [] }
        if role == .server, let deflate = configuration.deflate,
           broadcast.payload.count >= configuration.compressionThreshold,
           let frame = broadcast.compressedFrame(windowBits: deflate.serverMaxWindowBits,
                                                 level: configuration.compressionLevel) {
            return [.write(frame)]
        }
        if role == .server { return [.write(broadcast.plain)] }
        return [.write(encode(broadcast.opcode, payload: broadcast.payload))]
    }

    public mutating func sendPing(_ payload: [UInt8] = []) -> [Action] {
        guard state == .open, payload.count <= 125 else { return [] }
        return [.write(encode(.ping, payload: payload))]
    }

    /// Starts the closing handshake (RFC 6455 §7.1.2). The socket closes when the peer answers
    /// or after `closeTimeout`.
    public mutating func close(code: WebSocketCloseCode = .normalClosure, reason: String = "",
                               now: ContinuousClock.Instant) -> [Action] {
        guard state == .open else { return [] }
        state = .closing
        closeDeadline = now + configuration.closeTimeout
        releaseStreams()
        return [.write(encode(.close, payload: WebSocketFrameEncoder.closePayload(code: code, reason: reason)))]
    }

    /// Sends a close frame and closes without waiting for the peer's answer, e.g. 1013 for a
    /// client too far behind on reliable messages, or 1001 at shutdown.
    public mutating func abort(code: WebSocketCloseCode, reason: String = "") -> [Action] {
        guard state != .closed else { return [] }
        var actions: [Action] = []
        if state == .open {
            actions.append(.write(encode(.close, payload: WebSocketFrameEncoder.closePayload(code: code, reason: reason))))
        }
        state = .closed
        releaseStreams()
        actions.append(.closeAfterWrite)
        return actions
    }

    private mutating func sendMessage(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [Action] {
        guard state == .open else { return [] }
        if let deflate = configuration.deflate, payload.count >= configuration.compressionThreshold,
           let body = compress(payload, deflate: deflate) {
            return [.write(encode(opcode, rsv1: true, payload: body))]
        }
        return [.write(encode(opcode, payload: payload))]
    }

    private mutating func compress(_ payload: [UInt8], deflate: PerMessageDeflateParameters) -> [UInt8]? {
        let bits = deflate.sendWindowBits(as: role)
        if deflater == nil {
            deflater = try? DeflateStream(windowBits: bits, level: configuration.compressionLevel,
                                          memoryLevel: configuration.memoryLevel)
        }
        guard let stream = deflater, let body = try? stream.compressMessage(payload) else { return nil }
        // A server always starts each message afresh so broadcast frames stay shareable;
        // without history there is no reason to keep the (large) zlib state either.
        if role == .server || deflate.sendsWithoutContextTakeover(as: role) { deflater = nil }
        return body
    }

    private mutating func encode(_ opcode: WebSocketOpcode, rsv1: Bool = false, payload: [UInt8]) -> [UInt8] {
        guard role == .client else { return WebSocketFrameEncoder.encode(opcode: opcode, rsv1: rsv1, payload: payload) }
        return WebSocketFrameEncoder.encode(opcode: opcode, rsv1: rsv1, payload: payload, maskKey: nextMaskKey())
    }

    private mutating func nextMaskKey() -> (UInt8, UInt8, UInt8, UInt8) {
        // SplitMix64.
        maskState &+= 0x9E37_79B9_7F4A_7C15
        var z = maskState
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return (UInt8(truncatingIfNeeded: z), UInt8(truncatingIfNeeded: z >> 8),
                UInt8(truncatingIfNeeded: z >> 16), UInt8(truncatingIfNeeded: z >> 24))
    }

    // MARK: Time

    /// When `tick(now:)` next has something to do; nil when nothing is scheduled.
    public var nextDeadline: ContinuousClock.Instant? {
        switch state {
        case .closed: return nil
        case .closing: return closeDeadline
        case .open:
            var deadlines: [ContinuousClock.Instant] = []
            if let idle = configuration.idleTimeout { deadlines.append(lastReceived + idle) }
            if let interval = configuration.pingInterval {
                deadlines.append(max(lastReceived, lastPing ?? lastReceived) + interval)
            }
            return deadlines.min()
        }
    }

    /// Heartbeats and timeouts: pings a quiet peer, drops a silent one, ends a close
    /// handshake the peer never answers.
    public mutating func tick(now: ContinuousClock.Instant) -> [Action] {
        switch state {
        case .closed:
            return []
        case .closing:
            guard let closeDeadline, now >= closeDeadline else { return [] }
            state = .closed
            return [.closeNow]
        case .open:
            if let idle = configuration.idleTimeout, now - lastReceived >= idle {
                state = .closed
                releaseStreams()
                return [.closeNow]
            }
            if let interval = configuration.pingInterval,
               now - max(lastReceived, lastPing ?? lastReceived) >= interval {
                lastPing = now
                return [.write(encode(.ping, payload: []))]
            }
            return []
        }
    }
}
