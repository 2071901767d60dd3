import HTTPCore
import Posix

/// HTTP/1.1 on one connection, on its loop: parses requests (pipelined ones too), routes
/// them, and writes the responses strictly in request order even when they complete out of
/// order on other threads. Enforces the header-read (408) and idle timeouts.
final class HTTPServerConnection: ConnectionHandler, GracefulShutdownHandling {
    private struct Slot {
        var sequence: Int
        /// The client's address for the access log (see `TrustedProxies`).
        var remote: String
        var method: String
        var path: String
        var versionMinor: Int
        var keepAlive: Bool
        var isHead: Bool
        var startedAt: UInt64
        var response: HTTPResponse?
        var upgrade: (handler: UpgradeHandler, request: HTTPRequest)?
        /// For the Combined Log Format only.
        var referer: String? = nil
        var userAgent: String? = nil
    }

    private enum TimerKind { case idle, request }

    /// No more requests are read while this much output waits for a client that does not
    /// read its responses (reading resumes once the queue drains).
    static let outputHighWater = 1 << 20

    private let context: ServerContext
    private let loopState: LoopState
    private let connection: TCPConnection
    private let remote: String
    private var parser: HTTPRequestParser
    private var slots: [Slot] = []
    private var firstSequence = 0
    private var nextSequence = 0
    /// No more requests are read: after an error, a `Connection: close` or an upgrade.
    private var stopParsing = false
    private var isParsing = false
    private var detached = false
    private var shuttingDown = false
    /// When the first byte of the request being read arrived.
    private var requestStartedAt: UInt64?
    private var deadline: (at: UInt64, kind: TimerKind)?
    private var timer: (at: UInt64, handle: ScheduledTimer)?

    init(context: ServerContext, loopState: LoopState, connection: TCPConnection) {
        self.context = context
        self.loopState = loopState
        self.connection = connection
        self.remote = connection.remoteAddress.host
        self.parser = HTTPRequestParser(limits: context.limits)
        if !context.router.bodyLimits.isEmpty {
            let remote = self.remote
            parser.largerBodyLimit = { [context] head in
                context.router.largerBodyLimit(for: head, client: context.configuration.trustedProxies.client(peer: remote, headers: head.headers).address)
            }
        }
        connection.writeStallTimeout = context.configuration.idleTimeout
        updateTimer()
    }

    // MARK: ConnectionHandler

    func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
        if stopParsing && slots.last?.upgrade == nil { return }
        parser.append(bytes)
        if stopParsing { return }
        if requestStartedAt == nil { requestStartedAt = MonotonicClock.nanoseconds() }
        parseAvailable()
    }

    func receivedEOF(on connection: TCPConnection) {
        // A half-closed client still gets the answers to what it sent.
        if slots.isEmpty { connection.close() } else { stopParsing = true; shuttingDown = true }
        updateTimer()
    }

    func drained(_ connection: TCPConnection) {
        writeCompleted()
    }

    func closed(_ connection: TCPConnection, error: POSIXError?) {
        timer?.handle.cancel()
        timer = nil
        slots.removeAll()
    }

    func beginGracefulShutdown(of connection: TCPConnection) {
        shuttingDown = true
        if slots.isEmpty && !parser.isMidRequest { connection.close() }
    }

    // MARK: Requests

    private func parseAvailable() {
        guard !isParsing else { return }
        isParsing = true
        defer { isParsing = false }
        while !stopParsing && !detached && slots.count < context.configuration.maxPipelinedRequests && !outputBlocked {
            let request: HTTPRequest?
            do {
                request = try parser.next()
            } catch {
                fail(error.status)
                break
            }
            guard let request else { break }
            requestStartedAt = parser.bufferedByteCount > 0 ? MonotonicClock.nanoseconds() : nil
            dispatch(request)
        }
        if !detached && !stopParsing && (slots.count >= context.configuration.maxPipelinedRequests || outputBlocked) {
            if outputBlocked { connection.notifyWhenDrained() }
            connection.pauseReading()
        }
        updateTimer()
    }

    private var outputBlocked: Bool { connection.pendingOutboundBytes > Self.outputHighWater }

    /// Answers `status` after what is in flight, then closes.
    private func fail(_ status: HTTPStatus) {
        stopParsing = true
        let sequence = nextSequence
        nextSequence += 1
        slots.append(Slot(sequence: sequence, remote: remote, method: "-", path: "-", versionMinor: 1, keepAlive: false, isHead: false,
                          startedAt: MonotonicClock.nanoseconds(), response: .text(status)))
        writeCompleted()
    }

    private func dispatch(_ request: HTTPRequest) {
        let head = request.head
        let sequence = nextSequence
        nextSequence += 1
        let keepAlive = head.keepAlive && !shuttingDown && !context.isShuttingDown
        if !keepAlive { stopParsing = true }
        let client = context.configuration.trustedProxies.client(peer: remote, headers: head.headers)
        slots.append(Slot(sequence: sequence, remote: client.address, method: head.method, path: head.path, versionMinor: head.versionMinor,
                          keepAlive: keepAlive, isHead: head.method == "HEAD", startedAt: MonotonicClock.nanoseconds()))
        if context.accessLog?.format == .combined {
            slots[slots.count - 1].referer = head.headers["Referer"]
            slots[slots.count - 1].userAgent = head.headers["User-Agent"]
        }
        switch context.router.match(method: head.method, path: head.path) {
        case .upgrade(let handler):
            stopParsing = true
            slots[slots.count - 1].upgrade = (handler, request)
            writeCompleted()
        case .handler(let handler):
            handler(request, Responder(connection: self, loop: loopState.loop, sequence: sequence, client: client))
        case .methodNotAllowed(let allow):
            complete(sequence: sequence, with: .methodNotAllowed(allow: allow))
        case .none:
            complete(sequence: sequence, with: BuiltInRoutes.respond(to: head, context: context))
        }
    }

    /// Stores the response for `sequence` and writes every response that is now next in line.
    func complete(sequence: Int, with response: HTTPResponse) {
        let index = sequence - firstSequence
        guard !detached, index >= 0, index < slots.count, slots[index].response == nil else { return }
        slots[index].response = response
        writeCompleted()
    }

    private func writeCompleted() {
        while let first = slots.first, !detached, connection.isOpen {
            if let upgrade = first.upgrade {
                slots.removeFirst()
                firstSequence += 1
                performUpgrade(upgrade.handler, request: upgrade.request, slot: first)
                return
            }
            guard let response = first.response else { break }
            var slot = first
            slots.removeFirst()
            firstSequence += 1
            // Shutting down: the last answer in flight says so and closes.
            if shuttingDown && slots.isEmpty && !parser.isMidRequest { slot.keepAlive = false }
            write(response, for: slot)
            if !slot.keepAlive {
                connection.close()
                return
            }
        }
        guard !detached, connection.isOpen else { return }
        if slots.isEmpty && shuttingDown && !parser.isMidRequest {
            connection.close()
            return
        }
        if connection.isReadingPaused && slots.count < context.configuration.maxPipelinedRequests && !stopParsing
            && !outputBlocked {
            connection.resumeReading()
            parseAvailable()
        }
        updateTimer()
    }

    private func performUpgrade(_ handler: UpgradeHandler, request: HTTPRequest, slot: Slot) {
        detached = true
        timer?.handle.cancel()
        timer = nil
        let leftover = parser.takeBufferedBytes()
        switch handler(request, connection, leftover, UpgradeContext(webSockets: context.webSockets)) {
        case .upgraded:
            log(slot, status: 101, bytes: 0)
        case .rejected(let response):
            detached = false
            var closing = slot
            closing.keepAlive = false
            write(response, for: closing)
            connection.close()
        }
    }

    // MARK: Writing

    private func write(_ response: HTTPResponse, for slot: Slot) {
        var head = HTTPResponseHead(status: response.status, headers: response.headers).serialized()
        head.removeLast(2)
        head += loopState.dateLine
        head += context.securityHeaders
        head += response.preserializedHeaders
        let sendsBody = !response.status.forbidsBody
        if sendsBody {
            head += Array("Content-Length: \(response.body.count)\r\n".utf8)
        }
        if !slot.keepAlive {
            head += Array("Connection: close\r\n".utf8)
        } else if slot.versionMinor == 0 {
            head += Array("Connection: keep-alive\r\n".utf8)
        }
        head += [13, 10]
        var total = head.count
        if sendsBody && !slot.isHead && !response.body.isEmpty {
            total += response.body.count
            if response.body.count <= 1024 {
                head += response.body
                connection.write(head)
            } else {
                connection.write(head)
                connection.write(response.body)
            }
        } else {
            connection.write(head)
        }
        log(slot, status: response.status.code, bytes: total)
    }

    private func log(_ slot: Slot, status: Int, bytes: Int) {
        context.metrics.countResponse(status: status, bytes: bytes)
        context.accessLog?.log(.init(remote: slot.remote, method: slot.method, path: slot.path, versionMinor: slot.versionMinor,
                                     referer: slot.referer, userAgent: slot.userAgent),
                               status: status, bytes: bytes, nanoseconds: MonotonicClock.nanoseconds() &- slot.startedAt)
    }

    // MARK: Timers

    /// One deadline at a time: reading a request (header timeout) or waiting for one (idle).
    /// While responses are being produced, neither runs.
    private func updateTimer() {
        guard !detached, connection.isOpen else { return }
        if !slots.isEmpty {
            deadline = nil
        } else if let started = requestStartedAt {
            deadline = (started &+ context.configuration.headerTimeout.nanosecondsValue, .request)
        } else {
            deadline = (MonotonicClock.nanoseconds() &+ context.configuration.idleTimeout.nanosecondsValue, .idle)
        }
        guard let deadline else { return }
        if let timer, timer.at <= deadline.at { return }
        timer?.handle.cancel()
        let at = deadline.at
        let now = MonotonicClock.nanoseconds()
        let handle = loopState.loop.scheduleTimer(after: .nanoseconds(Int64(at > now ? at - now : 0))) { [weak self] in
            self?.timerFired(at: at)
        }
        timer = (at, handle)
    }

    private func timerFired(at: UInt64) {
        guard let timer, timer.at == at else { return }
        self.timer = nil
        guard let deadline, !detached, connection.isOpen else { return }
        if MonotonicClock.nanoseconds() < deadline.at {
            updateTimer()
            return
        }
        switch deadline.kind {
        case .idle:
            connection.close()
        case .request:
            self.deadline = nil
            fail(.requestTimeout)
        }
    }
}

extension Duration {
    var nanosecondsValue: UInt64 {
        let (seconds, attoseconds) = components
        return seconds < 0 ? 0 : UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
