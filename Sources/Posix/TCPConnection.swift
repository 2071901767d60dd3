import CLinux
import Glibc

/// One accepted TCP connection, confined to its loop: call everything on `loop`'s thread
/// (from another thread, go through `loop.execute` and a `LoopBound`).
///
/// Output is a queue of `[UInt8]` chunks written with `writev`, or, when one chunk is queued
/// and the loop has a send ring, batched with other sockets' sends through io_uring.
/// Enqueueing the same array on many connections shares its storage (arrays are
/// copy-on-write). EPOLLOUT is enabled only while output is queued.
public final class TCPConnection: EventSource {
    private enum State {
        case open
        /// Close as soon as the queued output is written.
        case closing
        /// Output written and our side shut down; reading and discarding until the peer
        /// closes or `lingerTimeout` passes.
        case lingering
        case closed
    }

    public let loop: EventLoop
    let fd: Int32
    public let remoteAddress: SocketAddress
    /// The protocol spoken here; swap it to change protocol.
    public var handler: ConnectionHandler?
    /// Runs once when the connection closes, before `handler.closed`, whichever handler
    /// is installed by then (for bookkeeping that must survive a protocol switch).
    public var onClose: (() -> Void)?
    /// Reads per wake-up before yielding to other sockets (each up to 64 KiB).
    public var maxReadsPerWakeup = 4
    /// A closing connection whose peer takes no output for this long is dropped: a client
    /// that never reads must not hold its queued output and descriptor forever.
    public var writeStallTimeout: Duration = .seconds(30)
    /// How long a closed connection keeps reading (and discarding) after its last output.
    /// Closing a socket with unread input makes the kernel send a reset, which can destroy
    /// output the peer has not read yet (a WebSocket close frame, a 413 answer), so we
    /// shut down our side and wait for the peer's EOF, as lingering close in other servers.
    public var lingerTimeout: Duration = .seconds(2)

    private var state = State.open
    private var outbound: [[UInt8]] = []
    private var outboundHead = 0
    private var headOffset = 0
    /// Bytes queued but not yet accepted by the kernel. Upper layers use it to drop
    /// latest-value messages or to close readers that fall too far behind.
    public private(set) var pendingOutboundBytes = 0
    private var registered = false
    private var interest: UInt32 = EPOLLIN.rawValue
    private var flushIsScheduled = false
    private var readingPaused = false
    private var sawEOF = false
    private var closeError: POSIXError?
    /// When the kernel last accepted output (for `writeStallTimeout`).
    private var lastOutputProgress: UInt64 = 0
    private var stallTimer: ScheduledTimer?
    private var drainNotificationWanted = false

    /// A small integer unique among open connections of this process (the descriptor).
    public var id: Int32 { fd }
    public var isOpen: Bool { state == .open }
    public var isClosed: Bool { state == .closed }

    init(fd: Int32, loop: EventLoop, remoteAddress: SocketAddress) {
        self.fd = fd
        self.loop = loop
        self.remoteAddress = remoteAddress
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Registers with the loop after the acceptor has set a handler.
    func activate() {
        guard state != .closed else { return }
        do {
            try loop.register(self, events: currentInterest())
            registered = true
        } catch {
            closeNow(error: error)
        }
    }

    // MARK: Output

    /// Queues `bytes`; they go out in this iteration's flush phase. Ignored once closing.
    public func write(_ bytes: [UInt8]) {
        guard state == .open, !bytes.isEmpty else { return }
        outbound.append(bytes)
        pendingOutboundBytes += bytes.count
        if !flushIsScheduled && interest & EPOLLOUT.rawValue == 0 {
            flushIsScheduled = true
            loop.scheduleFlush(self)
        }
    }

    /// Closes after the queued output is written (or at once when nothing is queued).
    public func close() {
        guard state == .open else { return }
        if pendingOutboundBytes == 0 {
            linger()
        } else {
            state = .closing
            // Stop reading: nothing more will be answered.
            readingPaused = true
            updateInterest()
            lastOutputProgress = MonotonicClock.nanoseconds()
            scheduleStallCheck()
        }
    }

    private func scheduleStallCheck() {
        let timeout = writeStallTimeout.nanoseconds
        stallTimer = loop.scheduleTimer(after: writeStallTimeout) { [weak self] in
            guard let self, self.state == .closing else { return }
            if MonotonicClock.nanoseconds() &- self.lastOutputProgress >= timeout {
                self.closeNow(error: POSIXError(code: ETIMEDOUT, call: "write"))
            } else {
                self.scheduleStallCheck()
            }
        }
    }

    /// Shuts down our side once all output is written, then discards input until the peer's
    /// EOF (or `lingerTimeout`) before releasing the descriptor.
    private func linger() {
        stallTimer?.cancel()
        stallTimer = nil
        guard !sawEOF else {
            closeNow(error: nil)
            return
        }
        state = .lingering
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        readingPaused = false
        updateInterest(wantWrite: false)
        stallTimer = loop.scheduleTimer(after: lingerTimeout) { [weak self] in
            guard let self, self.state == .lingering else { return }
            self.closeNow(error: nil)
        }
    }

    /// Reads and drops what a lingering peer still sends; its EOF or an error ends the linger.
    private func discardAvailable() {
        let buffer = loop.readBuffer
        for _ in 0..<maxReadsPerWakeup {
            let result: IOResult<Int>
            do {
                result = try syscall("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            } catch {
                closeNow(error: nil)
                return
            }
            switch result {
            case .wouldBlock: return
            case .done(0):
                closeNow(error: nil)
                return
            case .done: continue
            }
        }
    }

    /// Moves the socket to `target` (another loop): this object leaves its loop without
    /// closing the descriptor, runs `onClose` (the bookkeeping of this loop), and on `target`
    /// a new `TCPConnection` for the same socket is handed to `adopted`, which sets its
    /// handler, before it starts reading. Input already in the kernel is read there.
    ///
    /// Call on this connection's loop. Returns false, and nothing changes, unless the
    /// connection is open with no output queued and `target` is another loop. If `target`
    /// has stopped by the time the move arrives, the socket is closed.
    public func migrate(to target: EventLoop, _ adopted: @escaping @Sendable (TCPConnection) -> Void) -> Bool {
        precondition(loop.inEventLoop, "migrate must be called on the connection's loop")
        guard state == .open, pendingOutboundBytes == 0, target !== loop else { return false }
        state = .closed
        stallTimer?.cancel()
        stallTimer = nil
        if registered {
            loop.deregister(self)
            registered = false
        }
        let onClose = self.onClose
        self.onClose = nil
        onClose?()
        handler = nil
        let move = SocketMove(fd: fd, remoteAddress: remoteAddress)
        target.execute {
            let moved = TCPConnection(fd: move.take(), loop: target, remoteAddress: move.remoteAddress)
            adopted(moved)
            moved.activate()
        }
        return true
    }

    /// Drops queued output and closes. The descriptor is released at the end of this
    /// iteration and `handler.closed` runs then.
    public func closeNow(error: POSIXError? = nil) {
        guard state != .closed else { return }
        state = .closed
        closeError = error
        stallTimer?.cancel()
        stallTimer = nil
        outbound.removeAll()
        pendingOutboundBytes = 0
        if registered {
            loop.deregister(self)
            registered = false
        }
        loop.scheduleClose(self)
    }

    // MARK: Input flow control

    /// Stops reading (for back-pressure); the kernel buffers and then the peer waits.
    public func pauseReading() {
        guard !readingPaused else { return }
        readingPaused = true
        updateInterest()
    }

    public func resumeReading() {
        guard readingPaused, state == .open else { return }
        readingPaused = false
        updateInterest()
    }

    public var isReadingPaused: Bool { readingPaused }

    /// Asks for one `handler.drained` call when the queue next empties, even if the socket
    /// never pushed back (for a handler that paused itself on a large queue).
    public func notifyWhenDrained() {
        drainNotificationWanted = true
    }

    // MARK: Loop callbacks

    func handle(events: UInt32) {
        if events & EPOLLOUT.rawValue != 0 {
            flushNow(afterBackPressure: true)
        }
        if state != .closed && events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            if readingPaused || sawEOF {
                // EPOLLHUP/ERR arrive even when not asked for: the socket is dead.
                if events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { closeNow(error: socketError()) }
            } else {
                readAvailable()
            }
        }
    }

    private func readAvailable() {
        if state == .lingering {
            discardAvailable()
            return
        }
        let buffer = loop.readBuffer
        for _ in 0..<maxReadsPerWakeup {
            guard state == .open, !readingPaused else { return }
            let result: IOResult<Int>
            do {
                result = try syscall("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            } catch {
                closeNow(error: error)
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .done(0):
                sawEOF = true
                updateInterest()
                if let handler { handler.receivedEOF(on: self) } else { close() }
                return
            case .done(let count):
                handler?.received(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), on: self)
                // A short read means the socket is drained; skip the EAGAIN round-trip.
                if count < buffer.count { return }
            }
        }
    }

    func flushScheduled() {
        flushIsScheduled = false
        guard interest & EPOLLOUT.rawValue == 0 else { return }
        // One chunk (a broadcast frame, a reply) goes through the loop's send ring, batched
        // with the other sockets' sends; several go out together with `writev`.
        if let ring = loop.sendRing, state != .closed, outbound.count - outboundHead == 1 {
            // A local reference to the chunk: the ring may run other connections' completions
            // before it returns, and no access to `outbound` is held meanwhile.
            let offset = headOffset
            let chunk = outbound[outboundHead]
            let queued = chunk.withUnsafeBytes { raw in
                ring.enqueue(self, bytes: UnsafeRawBufferPointer(rebasing: raw[offset...]))
            }
            if queued { return }
        }
        flushNow(afterBackPressure: false)
    }

    /// The send ring's result for the chunk `flushScheduled` queued: bytes sent or -errno.
    func sendCompleted(result: Int32) {
        guard state != .closed else { return }
        switch result {
        case 0...:
            consume(Int(result))
            flushNow(afterBackPressure: false)
        case -EAGAIN, -EWOULDBLOCK:
            if interest & EPOLLOUT.rawValue == 0 { updateInterest(wantWrite: true) }
        case -EINTR:
            flushNow(afterBackPressure: false)
        case -EBADF:
            fatalError("send: EBADF; a descriptor was used after close (a bug in Tombola)")
        default:
            closeNow(error: POSIXError(code: -result, call: "send"))
        }
    }

    private func flushNow(afterBackPressure: Bool) {
        while state != .closed && pendingOutboundBytes > 0 {
            let result: IOResult<Int>
            do {
                result = try writeQueued()
            } catch {
                closeNow(error: error)
                return
            }
            switch result {
            case .wouldBlock:
                if interest & EPOLLOUT.rawValue == 0 { updateInterest(wantWrite: true) }
                return
            case .done(let written):
                consume(written)
            }
        }
        guard state != .closed else { return }
        if interest & EPOLLOUT.rawValue != 0 { updateInterest(wantWrite: false) }
        if state == .closing {
            linger()
        } else if state == .open && (afterBackPressure || drainNotificationWanted) {
            drainNotificationWanted = false
            handler?.drained(self)
        }
    }

    /// Writes as much of the queue as one `writev` takes. The chunks' storage is pinned by
    /// nesting `withUnsafeBytes`, one level per chunk (at most `EventLoop.maxIovecs`).
    private func writeQueued() throws(POSIXError) -> IOResult<Int> {
        let count = min(outbound.count - outboundHead, EventLoop.maxIovecs)
        if count == 1 {
            let offset = headOffset
            let chunk = outbound[outboundHead]
            return try syscall("write") {
                chunk.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset) }
            }
        }
        let iovecs = loop.iovecs
        func pin(_ index: Int) -> (Int, Int32) {
            if index == count {
                let result = Glibc.writev(fd, iovecs, Int32(count))
                return (result, result < 0 ? clinux_errno() : 0)
            }
            return outbound[outboundHead + index].withUnsafeBytes { raw in
                let offset = index == 0 ? headOffset : 0
                iovecs[index] = iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + offset),
                                      iov_len: raw.count - offset)
                return pin(index + 1)
            }
        }
        while true {
            let (result, code) = pin(0)
            if result >= 0 { return .done(result) }
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case EBADF: fatalError("writev: EBADF; a descriptor was used after close (a bug in Tombola)")
            default: throw POSIXError(code: code, call: "writev")
            }
        }
    }

    private func consume(_ written: Int) {
        pendingOutboundBytes -= written
        if state == .closing { lastOutputProgress = MonotonicClock.nanoseconds() }
        var remaining = written
        while remaining > 0 {
            let available = outbound[outboundHead].count - headOffset
            if remaining >= available {
                remaining -= available
                outbound[outboundHead] = []
                outboundHead += 1
                headOffset = 0
            } else {
                headOffset += remaining
                remaining = 0
            }
        }
        if outboundHead == outbound.count {
            outbound.removeAll(keepingCapacity: outbound.count <= 64)
            outboundHead = 0
        } else if outboundHead >= 64 && outboundHead * 2 >= outbound.count {
            outbound.removeFirst(outboundHead)
            outboundHead = 0
        }
    }

    // MARK: Interest and closing

    private func currentInterest(wantWrite: Bool? = nil) -> UInt32 {
        var events: UInt32 = 0
        if !readingPaused && !sawEOF { events |= EPOLLIN.rawValue }
        if wantWrite ?? (interest & EPOLLOUT.rawValue != 0) { events |= EPOLLOUT.rawValue }
        return events
    }

    private func updateInterest(wantWrite: Bool? = nil) {
        let events = currentInterest(wantWrite: wantWrite)
        guard events != interest || !registered else {
            interest = events
            return
        }
        interest = events
        if registered { loop.modify(self, events: events) }
    }

    private func socketError() -> POSIXError? {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
        return code == 0 ? nil : POSIXError(code: code, call: "socket")
    }

    /// The deferred-close phase: release the descriptor, then tell the handler.
    func finishClose() {
        closeDescriptor(fd)
        let onClose = self.onClose
        self.onClose = nil
        onClose?()
        let handler = self.handler
        self.handler = nil
        handler?.closed(self, error: closeError)
    }

    func loopWillClose() { closeNow(error: nil) }
}

/// A descriptor in transit between loops. If the task carrying it is dropped (the target
/// loop stopped first), `deinit` closes the socket, so nothing leaks.
private final class SocketMove: @unchecked Sendable {
    private var fd: Int32
    let remoteAddress: SocketAddress

    init(fd: Int32, remoteAddress: SocketAddress) {
        self.fd = fd
        self.remoteAddress = remoteAddress
    }

    /// The descriptor, once; after this the move no longer owns it.
    func take() -> Int32 {
        let taken = fd
        fd = -1
        return taken
    }

    deinit {
        if fd >= 0 { closeDescriptor(fd) }
    }
}
