import CLinux
import Glibc
import Locking
import Synchronization

/// Something registered with a loop's epoll set. Loop-confined.
protocol EventSource: AnyObject {
    var fd: Int32 { get }
    func handle(events: UInt32)
    /// The loop is shutting down: release the descriptor and tell whoever cares.
    func loopWillClose()
}

/// One epoll loop on one thread. Every socket registered here is touched only on this
/// loop's thread; other threads reach it through `execute(_:)`.
///
/// One iteration runs its phases in this order: wait → I/O → mailbox → timers → flush →
/// deferred closes. Writes made in any earlier phase go out together in the flush phase;
/// descriptors are closed last, so a number cannot be reused while events for it are
/// still being dispatched. A long flush phase (a broadcast) stops every 256 sends to handle
/// input that arrived meanwhile and send its answers first.
///
/// `@unchecked Sendable`: `mailbox` and `threadID` are synchronized; every other stored
/// property is read and written only on the loop thread (checked with `inEventLoop`).
public final class EventLoop: @unchecked Sendable {
    private struct Mailbox {
        var tasks: [@Sendable () -> Void] = []
        var wakePending = false
        /// Set when `run()` has returned: later tasks are dropped at once.
        var closed = false
    }

    /// Position in its group, for round-robin and diagnostics.
    public let index: Int

    let epollFD: Int32
    private let wakeFD: Int32
    private let mailbox = Lock(Mailbox())
    private let threadID = Atomic<UInt>(0)
    private let stopRequested = Atomic<Bool>(false)
    private let usesSendRingFlag = Atomic<Bool>(false)

    private var sources: [Int32: EventSource] = [:]
    private var timers = TimerQueue()
    private var pendingFlush: [TCPConnection] = []
    private var pendingClose: [TCPConnection] = []
    /// One read buffer per loop: every connection reads into it and handlers copy what they keep.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Batches this iteration's single-chunk sends into few system calls; nil when
    /// `sendBatching` is off or the kernel has no io_uring. Set up on the loop thread.
    private(set) var sendRing: SendRing?
    private let sendBatching: SendBatching
    /// Scratch space for `writev`.
    let iovecs: UnsafeMutablePointer<iovec>
    static let maxIovecs = 64
    /// Sends between two looks at the input during a long flush phase.
    static let flushSliceSize = 256
    static let flushEventCapacity: Int32 = 64
    private var flushEvents: UnsafeMutablePointer<epoll_event>?

    public init(index: Int = 0, sendBatching: SendBatching = .automatic) throws(POSIXError) {
        Signals.ignoreSIGPIPE()
        self.index = index
        self.sendBatching = sendBatching
        epollFD = Int32(try syscallOrThrow("epoll_create1") { Int(epoll_create1(Int32(EPOLL_CLOEXEC))) })
        let epfd = epollFD
        do {
            wakeFD = Int32(try syscallOrThrow("eventfd") { Int(eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))) })
        } catch {
            closeDescriptor(epfd)
            throw error
        }
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        iovecs = .allocate(capacity: Self.maxIovecs)
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeFD
        _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
    }

    deinit {
        closeDescriptor(wakeFD)
        closeDescriptor(epollFD)
        readBuffer.deallocate()
        iovecs.deallocate()
    }

    /// True on this loop's thread while `run()` is running.
    public var inEventLoop: Bool {
        let id = threadID.load(ordering: .acquiring)
        return id != 0 && pthread_equal(pthread_t(id), pthread_self()) != 0
    }

    /// Runs `task` on the loop thread in its next mailbox phase. Safe from any thread,
    /// including the loop's own (the task then runs in the next iteration, never inline).
    /// Once the loop has stopped, `task` never runs and is released at once.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        let mustWake = mailbox.withLock { box in
            if box.closed { return false }
            box.tasks.append(task)
            if box.wakePending { return false }
            box.wakePending = true
            return true
        }
        if mustWake { wake() }
    }

    private func wake() {
        var one: UInt64 = 1
        // EAGAIN means the counter is already non-zero: the loop will wake anyway.
        _ = try? syscall("write(eventfd)") { Glibc.write(wakeFD, &one, 8) }
    }

    /// Asks the loop to finish its current iteration, close everything it owns and return
    /// from `run()`. Safe from any thread.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        execute {}
    }

    // MARK: Timers (loop thread only)

    /// Runs `action` on this loop after `delay`. Call on the loop thread.
    @discardableResult
    public func scheduleTimer(after delay: Duration, _ action: @escaping () -> Void) -> ScheduledTimer {
        precondition(inEventLoop, "scheduleTimer must be called on its loop")
        let id = timers.schedule(at: MonotonicClock.nanoseconds() &+ delay.nanoseconds, action)
        return ScheduledTimer(id: id, loop: self)
    }

    fileprivate func cancelTimer(id: UInt64) {
        if inEventLoop {
            timers.cancel(id)
        } else {
            execute { self.timers.cancel(id) }
        }
    }

    // MARK: Registration (loop thread only)

    func register(_ source: EventSource, events: UInt32) throws(POSIXError) {
        var event = epoll_event()
        event.events = events
        event.data.fd = source.fd
        _ = try syscallOrThrow("epoll_ctl(ADD)") { Int(epoll_ctl(epollFD, EPOLL_CTL_ADD, source.fd, &event)) }
        sources[source.fd] = source
    }

    func modify(_ source: EventSource, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.fd = source.fd
        _ = try? syscallOrThrow("epoll_ctl(MOD)") { Int(epoll_ctl(epollFD, EPOLL_CTL_MOD, source.fd, &event)) }
    }

    func deregister(_ source: EventSource) {
        guard sources.removeValue(forKey: source.fd) != nil else { return }
        var event = epoll_event()
        _ = try? syscallOrThrow("epoll_ctl(DEL)") { Int(epoll_ctl(epollFD, EPOLL_CTL_DEL, source.fd, &event)) }
    }

    func scheduleFlush(_ connection: TCPConnection) {
        pendingFlush.append(connection)
    }

    func scheduleClose(_ connection: TCPConnection) {
        pendingClose.append(connection)
    }

    /// Whether this loop sends through io_uring (known once it runs). From any thread.
    public var usesSendRing: Bool { usesSendRingFlag.load(ordering: .acquiring) }

    /// Number of registered sockets (connections and listeners).
    public var registeredCount: Int { sources.count }

    // MARK: The loop

    /// Runs the loop on the calling thread until `stop()`.
    public func run() {
        threadID.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .releasing)
        let capacity: Int32 = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(capacity))
        defer { events.deallocate() }
        flushEvents = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(Self.flushEventCapacity))
        defer {
            flushEvents?.deallocate()
            flushEvents = nil
        }
        if sendBatching == .automatic { sendRing = SendRing() }
        usesSendRingFlag.store(sendRing != nil, ordering: .releasing)
        while !stopRequested.load(ordering: .acquiring) {
            // Wait.
            let timeout = waitTimeoutMilliseconds()
            let ready: Int
            switch (try? syscall("epoll_wait") { Int(epoll_wait(epollFD, events, capacity, timeout)) }) {
            case .done(let n): ready = n
            default: ready = 0
            }
            // I/O.
            for i in 0..<ready {
                let event = events[i]
                let fd = event.data.fd
                if fd == wakeFD {
                    var counter: UInt64 = 0
                    _ = try? syscall("read(eventfd)") { Glibc.read(wakeFD, &counter, 8) }
                } else if let source = sources[fd] {
                    source.handle(events: event.events)
                }
            }
            // Mailbox.
            let tasks = mailbox.withLock { box in
                box.wakePending = false
                let tasks = box.tasks
                box.tasks = []
                return tasks
            }
            for task in tasks { task() }
            // Timers.
            if timers.count > 0 {
                for action in timers.popDue(now: MonotonicClock.nanoseconds()) { action() }
            }
            // Flush, then deferred closes.
            flushPending()
            closePending()
        }
        shutDownSources()
        sendRing = nil
        threadID.store(0, ordering: .releasing)
    }

    private func waitTimeoutMilliseconds() -> Int32 {
        if !pendingFlush.isEmpty || !pendingClose.isEmpty { return 0 }
        guard let deadline = timers.nextDeadline() else { return -1 }
        let now = MonotonicClock.nanoseconds()
        if deadline <= now { return 0 }
        // Round up so a timer never fires early.
        let millis = (deadline - now + 999_999) / 1_000_000
        return Int32(min(millis, UInt64(Int32.max)))
    }

    private func flushPending() {
        while !pendingFlush.isEmpty {
            let batch = pendingFlush
            pendingFlush.removeAll(keepingCapacity: true)
            var sinceInput = 0
            for connection in batch {
                connection.flushScheduled()
                sinceInput += 1
                if sinceInput == Self.flushSliceSize {
                    sinceInput = 0
                    sendRing?.submit()
                    serviceInputDuringFlush()
                }
            }
            sendRing?.submit()
        }
    }

    /// A broadcast to thousands of sockets keeps the flush phase busy for tens of
    /// milliseconds. Every `flushSliceSize` sends, input that arrived meanwhile (a
    /// calculator key, a host command) is read and handled, and the output it causes is
    /// flushed at once, ahead of the rest of the broadcast. Mailbox tasks and timers wait
    /// for the next iteration (the eventfd stays readable, so its wake-up is not lost).
    private func serviceInputDuringFlush() {
        guard let flushEvents else { return }
        let ready = Int(epoll_wait(epollFD, flushEvents, Self.flushEventCapacity, 0))
        guard ready > 0 else { return }
        let outer = pendingFlush
        pendingFlush = []
        for i in 0..<ready {
            let fd = flushEvents[i].data.fd
            if fd != wakeFD, let source = sources[fd] { source.handle(events: flushEvents[i].events) }
        }
        while !pendingFlush.isEmpty {
            let replies = pendingFlush
            pendingFlush.removeAll(keepingCapacity: true)
            for connection in replies { connection.flushScheduled() }
            sendRing?.submit()
        }
        pendingFlush = outer
    }

    private func closePending() {
        while !pendingClose.isEmpty {
            let batch = pendingClose
            pendingClose.removeAll(keepingCapacity: true)
            for connection in batch { connection.finishClose() }
        }
    }

    private func shutDownSources() {
        for source in Array(sources.values) { source.loopWillClose() }
        closePending()
        sources.removeAll()
        pendingFlush.removeAll()
        releaseUnrunWork()
    }

    /// Drops the timers and the tasks that will never run now, and refuses later tasks.
    /// Their closures often hold this loop (through a connection, a room or a timer
    /// handle), so keeping them would keep the loop and all it reaches alive for good.
    /// Releasing one may run a `deinit` that schedules or posts more, hence the repeat.
    private func releaseUnrunWork() {
        while true {
            var timerActions = timers.popDue(now: .max)
            timers = TimerQueue()
            var tasks = mailbox.withLock { box in
                box.closed = true
                let tasks = box.tasks
                box.tasks = []
                return tasks
            }
            if timerActions.isEmpty && tasks.isEmpty { return }
            timerActions.removeAll()
            tasks.removeAll()
        }
    }
}

/// A timer scheduled on a loop. `cancel()` is safe from any thread; a timer that already
/// fired ignores it.
public struct ScheduledTimer: Sendable {
    let id: UInt64
    let loop: EventLoop

    public func cancel() { loop.cancelTimer(id: id) }
}
