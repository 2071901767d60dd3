import CLinux
import Glibc

/// Readiness callbacks for a descriptor that something else owns (a C library's socket,
/// such as hiredis's): the loop says when it is readable or writable, and the watcher never
/// reads, writes or closes it. Loop-confined: create, change and cancel it on its loop.
///
/// Interest is level-triggered. With no interest the descriptor leaves the epoll set,
/// because epoll reports a hang-up even for an empty mask and would spin the loop. A
/// hang-up or error is reported as readable and writable (whichever is watched), so the
/// owner's next read or write sees the failure. Call `cancel()` before the owner closes
/// the descriptor; the handlers are released then, which breaks the owner ↔ watcher cycle.
public final class DescriptorWatcher: EventSource {
    public let fd: Int32
    private let loop: EventLoop
    private var onReadable: (() -> Void)?
    private var onWritable: (() -> Void)?
    private var onLoopClose: (() -> Void)?
    public private(set) var watchesRead = false
    public private(set) var watchesWrite = false
    private var registered = false
    public private(set) var isCancelled = false

    /// `onLoopClose` runs when the loop shuts down while the watcher is registered: the
    /// owner should release the descriptor then (and cancel the watcher first).
    public init(
        fd: Int32, loop: EventLoop,
        onReadable: @escaping () -> Void, onWritable: @escaping () -> Void,
        onLoopClose: @escaping () -> Void
    ) {
        precondition(loop.inEventLoop, "DescriptorWatcher must be created on its loop")
        self.fd = fd
        self.loop = loop
        self.onReadable = onReadable
        self.onWritable = onWritable
        self.onLoopClose = onLoopClose
    }

    /// Starts or stops reporting readability. Idempotent.
    public func watchRead(_ on: Bool) {
        guard on != watchesRead else { return }
        watchesRead = on
        update()
    }

    /// Starts or stops reporting writability. Idempotent.
    public func watchWrite(_ on: Bool) {
        guard on != watchesWrite else { return }
        watchesWrite = on
        update()
    }

    /// Stops reporting for good and releases the handlers. Call before the descriptor is closed.
    public func cancel() {
        guard !isCancelled else { return }
        precondition(loop.inEventLoop, "DescriptorWatcher cancelled off its loop")
        isCancelled = true
        watchesRead = false
        watchesWrite = false
        if registered {
            registered = false
            loop.deregister(self)
        }
        onReadable = nil
        onWritable = nil
        onLoopClose = nil
    }

    private func update() {
        guard !isCancelled else { return }
        precondition(loop.inEventLoop, "DescriptorWatcher changed off its loop")
        var mask: UInt32 = 0
        if watchesRead { mask |= EPOLLIN.rawValue }
        if watchesWrite { mask |= EPOLLOUT.rawValue }
        if mask == 0 {
            if registered {
                registered = false
                loop.deregister(self)
            }
        } else if registered {
            loop.modify(self, events: mask)
        } else {
            do {
                try loop.register(self, events: mask)
                registered = true
            } catch {
                // Registration fails only for a descriptor epoll cannot watch; report it as
                // ready so the owner's own call sees the error and gives up on it.
                loop.scheduleTimer(after: .zero) { [weak self] in self?.reportFailure() }
            }
        }
    }

    private func reportFailure() {
        if watchesWrite { onWritable?() }
        if !isCancelled, watchesRead { onReadable?() }
    }

    func handle(events: UInt32) {
        let failed = events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
        if watchesWrite && (failed || events & EPOLLOUT.rawValue != 0) { onWritable?() }
        if !isCancelled && watchesRead && (failed || events & EPOLLIN.rawValue != 0) { onReadable?() }
    }

    func loopWillClose() {
        let close = onLoopClose
        cancel()
        close?()
    }
}
