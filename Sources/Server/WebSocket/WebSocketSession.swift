import HTTPCore
import Posix
import Synchronization
import WebSocketCore

extension OutboundStream {
    /// The latest-value slot, nil for reliable.
    var latestSlot: UInt8? {
        switch self {
        case .latestValue: 0
        case .latestValueSlot(let slot): slot
        case .reliable: nil
        }
    }
}

/// One accepted WebSocket connection, confined to its loop: call everything on `loop`'s
/// thread (from elsewhere use `handle` or a `BroadcastGroup`). Runs the RFC 6455 codec
/// (`WebSocketConnection`) on a `TCPConnection` and executes its actions in order.
///
/// The endpoint's `accept` sets `onText`/`onBinary`/`onClose`; callbacks run on the loop and
/// are dropped when the session closes (so capturing the session in them makes no cycle
/// that outlives it).
public final class WebSocketSession: ConnectionHandler, GracefulShutdownHandling {
    private static let nextID = Atomic<UInt64>(1)

    /// Unique in this process, never reused.
    public let id: UInt64
    public let loop: EventLoop
    public let remoteAddress: SocketAddress
    /// The client's address: the peer's, or the one a trusted proxy named (`--trusted-proxy`).
    public let clientAddress: String
    /// The upgrade request: path, query and headers.
    public let request: HTTPRequest
    /// The negotiated subprotocol, if any.
    public let subprotocol: String?
    /// Whether permessage-deflate was negotiated.
    public var isCompressed: Bool { codec.configuration.deflate != nil }

    /// A complete text message arrived (valid UTF-8, reassembled, inflated).
    public var onText: ((String) -> Void)?
    /// A complete binary message arrived.
    public var onBinary: (([UInt8]) -> Void)?
    /// The session is gone (either side closed, or the socket died). Runs once.
    public var onClose: (() -> Void)?

    /// Whether the session still sends and delivers messages (false once either side began closing).
    public var isOpen: Bool { !closing && codec.state == .open && connection.isOpen }

    /// The close code the session ended with (sent or received); nil while open.
    public private(set) var closeCode: UInt16?

    let connection: TCPConnection
    private var codec: WebSocketConnection
    private let configuration: WebSocketEndpointConfiguration
    private let metrics: WebSocketMetrics
    private let loopSessions: WebSocketLoopSessions
    /// Every loop's session registry, for broadcast groups this session joins.
    let allLoops: [WebSocketLoopSessions]
    /// Position in `loopSessions` (maintained there).
    var registryIndex = -1
    /// Groups this session is in, left automatically on close.
    var memberships: [BroadcastGroup] = []
    /// Per latest-value slot, the newest frame skipped while the client was behind (usually empty).
    private var pendingLatest: [(slot: UInt8, frame: BroadcastFrame)] = []
    /// We began closing (close frame queued): stop delivering and sending.
    private var closing = false
    /// When a close we started must be finished even if the queue never drains.
    private var closeDeadline: ContinuousClock.Instant?
    private var isClosed = false

    init(connection: TCPConnection, request: HTTPRequest, handshake: WebSocketHandshake.Result,
         configuration: WebSocketEndpointConfiguration, runtime: WebSocketRuntime.Snapshot) {
        id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        loop = connection.loop
        remoteAddress = connection.remoteAddress
        clientAddress = runtime.trustedProxies.client(peer: connection.remoteAddress.host, headers: request.head.headers).address
        self.request = request
        subprotocol = handshake.subprotocol
        self.connection = connection
        self.configuration = configuration
        metrics = runtime.metrics
        loopSessions = runtime.loopSessions
        allLoops = runtime.allLoops
        codec = WebSocketConnection(role: .server, configuration: configuration.connectionConfiguration(deflate: handshake.deflate),
                                    now: .now)
    }

    /// A reference usable from any thread.
    public var handle: WebSocketSessionHandle { WebSocketSessionHandle(self) }

    // MARK: Sending (loop thread)

    /// Sends a text message to this client alone (reliable: never dropped).
    public func send(text: String) {
        precondition(loop.inEventLoop, "WebSocketSession used off its loop")
        guard isOpen else { return }
        guard checkReliableRoom() else { return }
        metrics.messagesSent.increment()
        perform(codec.send(text: text))
    }

    /// Sends a binary message to this client alone (reliable: never dropped).
    public func send(binary: [UInt8]) {
        precondition(loop.inEventLoop, "WebSocketSession used off its loop")
        guard isOpen else { return }
        guard checkReliableRoom() else { return }
        metrics.messagesSent.increment()
        perform(codec.send(binary: binary))
    }

    /// Sends a frame encoded once for many clients (the same bytes, never copied).
    public func send(_ frame: BroadcastFrame, stream: OutboundStream) {
        precondition(loop.inEventLoop, "WebSocketSession used off its loop")
        if enqueue(frame, stream: stream, cache: nil) { metrics.messagesSent.increment() }
    }

    /// Starts the closing handshake (RFC 6455 §7.1.2); the socket closes when the client
    /// answers or after the endpoint's close timeout. `onClose` runs then.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        guard !closing, codec.state == .open else { return }
        closing = true
        pendingLatest = []
        closeCode = code.rawValue
        perform(codec.close(code: code, reason: Self.truncated(reason), now: .now))
        closeDeadline = .now + configuration.closeTimeout
    }

    /// Sends a close frame and closes once it is written, without waiting for an answer.
    func abort(code: WebSocketCloseCode, reason: String = "") {
        guard !closing, codec.state != .closed else { return }
        closing = true
        pendingLatest = []
        closeCode = code.rawValue
        connection.pauseReading()
        perform(codec.abort(code: code, reason: Self.truncated(reason)))
        closeDeadline = .now + configuration.closeTimeout
    }

    /// Queues `frame` (the shared compressed variant when this client takes it). `cache`
    /// memoizes the variant per window size within one broadcast. Returns whether it was queued.
    @discardableResult
    func enqueue(_ frame: BroadcastFrame, stream: OutboundStream, cache: FrameVariantCache?) -> Bool {
        guard isOpen else { return false }
        if let slot = stream.latestSlot {
            if connection.pendingOutboundBytes > configuration.latestValueSoftLimit {
                if let index = pendingLatest.firstIndex(where: { $0.slot == slot }) {
                    pendingLatest[index].frame = frame
                } else {
                    pendingLatest.append((slot, frame))
                }
                metrics.framesSkipped.increment()
                return false
            }
            if !pendingLatest.isEmpty { pendingLatest.removeAll { $0.slot == slot } }
        } else {
            guard checkReliableRoom() else { return false }
        }
        connection.write(bytes(for: frame, cache: cache))
        return true
    }

    private func bytes(for frame: BroadcastFrame, cache: FrameVariantCache?) -> [UInt8] {
        guard let deflate = codec.configuration.deflate, frame.payload.count >= codec.configuration.compressionThreshold else {
            return frame.plain
        }
        let bits = max(8, min(15, deflate.serverMaxWindowBits))
        if let cache, let cached = cache.variants[bits - 8] { return cached ?? frame.plain }
        let compressed = frame.compressedFrame(windowBits: bits, level: codec.configuration.compressionLevel)
        cache?.variants[bits - 8] = .some(compressed)
        return compressed ?? frame.plain
    }

    func countSent(_ count: Int) {
        if count > 0 { metrics.messagesSent.increment(by: count) }
    }

    /// Reliable output must fit under the hard limit; a client too far behind is closed with 1013.
    private func checkReliableRoom() -> Bool {
        if connection.pendingOutboundBytes > configuration.reliableHardLimit {
            abort(code: .tryAgainLater, reason: "too far behind")
            return false
        }
        return true
    }

    // MARK: Codec actions

    private func perform(_ actions: [WebSocketConnection.Action]) {
        for action in actions {
            switch action {
            case .write(let bytes):
                connection.write(bytes)
            case .deliverText(let text):
                metrics.messagesReceived.increment()
                if !closing { onText?(text) }
            case .deliverBinary(let bytes):
                metrics.messagesReceived.increment()
                if !closing { onBinary?(bytes) }
            case .deliverPing, .deliverPong:
                break
            case .deliverClose(let code, _):
                if closeCode == nil { closeCode = code?.rawValue ?? WebSocketCloseCode.noStatusReceived.rawValue }
            case .closeAfterWrite:
                if closeCode == nil, let failure = codec.failure { closeCode = failure.closeCode.rawValue }
                closing = true
                pendingLatest = []
                if closeDeadline == nil { closeDeadline = .now + configuration.closeTimeout }
                connection.close()
            case .closeNow:
                connection.closeNow()
            }
        }
    }

    private static func truncated(_ reason: String) -> String {
        // RFC 6455 §5.5: control payloads ≤ 125 bytes, 2 of them the code.
        var result = reason
        while result.utf8.count > 123 { result.removeLast() }
        return result
    }

    // MARK: Sweep (called by the loop's registry)

    func sweep(now: ContinuousClock.Instant) {
        guard !isClosed else { return }
        if let closeDeadline, now >= closeDeadline {
            connection.closeNow()
            return
        }
        if !pendingLatest.isEmpty && connection.pendingOutboundBytes == 0 { sendSkippedLatest() }
        let actions = codec.tick(now: now)
        if !actions.isEmpty { perform(actions) }
    }

    // MARK: ConnectionHandler

    public func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
        // A message at a time, each answered before the next frame is handled: a valid message
        // followed by an invalid frame in the same read is echoed/applied before the failure.
        perform(codec.receiveMessage(bytes, now: .now))
        while codec.hasUnhandledFrames, !isClosed {
            perform(codec.receiveMessage(EmptyCollection<UInt8>(), now: .now))
        }
        // Pongs (which the codec writes by itself) and echoes must not pile up for a client
        // that sends but never reads: stop reading it until its queue drains.
        if !closing && connection.pendingOutboundBytes > configuration.reliableHardLimit {
            connection.notifyWhenDrained()
            connection.pauseReading()
        }
    }

    public func receivedEOF(on connection: TCPConnection) {
        // The client stopped sending without a close frame (or after it): nothing more to do.
        connection.close()
    }

    public func drained(_ connection: TCPConnection) {
        if !pendingLatest.isEmpty { sendSkippedLatest() }
        if !closing && connection.isReadingPaused { connection.resumeReading() }
    }

    /// The queue drained: the newest skipped frame of each latest-value stream goes out.
    private func sendSkippedLatest() {
        let skipped = pendingLatest
        pendingLatest = []
        for (slot, frame) in skipped where enqueue(frame, stream: slot == 0 ? .latestValue : .latestValueSlot(slot), cache: nil) {
            metrics.messagesSent.increment()
        }
    }

    public func closed(_ connection: TCPConnection, error: POSIXError?) {
        guard !isClosed else { return }
        isClosed = true
        pendingLatest = []
        loopSessions.remove(self)
        for group in memberships { group.removeClosed(self) }
        memberships = []
        metrics.openSessions.decrement()
        metrics.countClose(code: closeCode ?? WebSocketCloseCode.abnormalClosure.rawValue)
        let onClose = self.onClose
        self.onClose = nil
        onText = nil
        onBinary = nil
        onClose?()
    }

    // MARK: GracefulShutdownHandling

    public func beginGracefulShutdown(of connection: TCPConnection) {
        // RFC 6455 §7.4.1: 1001, the server is going away. The client answers and we close;
        // the server cuts whoever does not answer within its grace period.
        if isOpen { close(code: .goingAway, reason: "server shutting down") } else { connection.close() }
    }

    /// Registers with the loop and counts the session (after the 101 is queued).
    func activate() {
        loopSessions.add(self, sweepInterval: configuration.sweepInterval)
        metrics.openSessions.increment()
        metrics.acceptedSessions.increment()
    }
}

/// Compressed variants of one broadcast frame by window size (8...15), looked up at most
/// once per loop per broadcast. `nil`: not yet looked up; `.some(nil)`: compression did not help.
final class FrameVariantCache {
    var variants: [[UInt8]??] = Array(repeating: nil, count: 8)
}

/// A session reference usable from any thread: every call hops to the session's loop.
public struct WebSocketSessionHandle: Sendable, Hashable {
    private let bound: LoopBound<WebSocketSession>
    public let id: UInt64

    init(_ session: WebSocketSession) {
        bound = LoopBound(session, loop: session.loop)
        id = session.id
    }

    public var loop: EventLoop { bound.loop }

    public func send(text: String) { bound.execute { $0.send(text: text) } }
    public func send(_ frame: BroadcastFrame, stream: OutboundStream) { bound.execute { $0.send(frame, stream: stream) } }
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        bound.execute { $0.close(code: code, reason: reason) }
    }
    /// Runs `body` with the session on its loop.
    public func execute(_ body: @escaping @Sendable (WebSocketSession) -> Void) { bound.execute(body) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
