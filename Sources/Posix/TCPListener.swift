import CLinux
import Glibc
import Locking

/// A listening TCP socket. Bound and listening from `init` (on the caller's thread), then
/// started on one loop, which accepts connections with `accept4(NONBLOCK|CLOEXEC)`.
///
/// For several loops, bind one listener per loop on the same port with `reusePort: true`;
/// the kernel spreads connections over them and no descriptor crosses threads.
///
/// `@unchecked Sendable`: after `start(on:acceptor:)`, mutable state is touched only on
/// its loop (`start` and `close` hop there with `execute`).
public final class TCPListener: EventSource, @unchecked Sendable {
    let fd: Int32
    /// The bound port (the kernel's choice when asked for port 0).
    public let port: Int
    public let address: SocketAddress
    private var loop: EventLoop?
    /// The loop given to `start`, readable from any thread for `close()`.
    private let startedLoop = Lock<EventLoop?>(nil)
    private var acceptor: (@Sendable (TCPConnection) -> Void)?
    private var isClosed = false
    private var isPaused = false

    /// `backlog`: connections the kernel completes and queues until the loop accepts them
    /// (capped by `net.core.somaxconn`, 4,096 by default). A venue's Wi-Fi blip brings thousands
    /// back within a second; a short queue drops their SYNs and each waits 1 s, 3 s, 7 s to retry.
    public init(host: String, port: Int, reusePort: Bool = false, backlog: Int32 = 4096) throws(POSIXError) {
        let requested = try SocketAddress(host: host, port: port)
        let fd = Int32(try syscallOrThrow("socket") {
            Int(socket(requested.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0))
        })
        do {
            var one: Int32 = 1
            let size = socklen_t(MemoryLayout<Int32>.size)
            _ = try syscallOrThrow("setsockopt(SO_REUSEADDR)") { Int(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, size)) }
            if reusePort {
                _ = try syscallOrThrow("setsockopt(SO_REUSEPORT)") { Int(setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, size)) }
            }
            _ = try syscallOrThrow("bind") { requested.withSockaddr { Int(bind(fd, $0, $1)) } }
            _ = try syscallOrThrow("listen") { Int(listen(fd, backlog)) }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            _ = try syscallOrThrow("getsockname") {
                withUnsafeMutableBytes(of: &storage) { raw in
                    Int(getsockname(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length))
                }
            }
            address = SocketAddress(storage: storage, length: length)
            self.port = address.port
            self.fd = fd
        } catch {
            closeDescriptor(fd)
            throw error
        }
    }

    /// Registers on `loop` and hands each accepted connection to `acceptor`, on that loop,
    /// before it reads anything. The acceptor sets `connection.handler`. Safe from any thread.
    public func start(on loop: EventLoop, acceptor: @escaping @Sendable (TCPConnection) -> Void) {
        startedLoop.withLock { $0 = loop }
        loop.execute {
            guard !self.isClosed else { return }
            self.loop = loop
            self.acceptor = acceptor
            do {
                try loop.register(self, events: EPOLLIN.rawValue)
            } catch {
                self.isClosed = true
                closeDescriptor(self.fd)
            }
        }
    }

    /// Stops accepting and closes the socket. Safe from any thread.
    public func close() {
        guard let loop = startedLoop.withLock({ $0 }) else {
            // Never started: no loop can touch it.
            if !isClosed { isClosed = true; closeDescriptor(fd) }
            return
        }
        loop.execute { self.closeOnLoop() }
    }

    private func closeOnLoop() {
        guard !isClosed else { return }
        isClosed = true
        loop?.deregister(self)
        closeDescriptor(fd)
        acceptor = nil
    }

    func loopWillClose() { closeOnLoop() }

    func handle(events: UInt32) {
        guard let loop, let acceptor, !isClosed else { return }
        // Accept a bounded batch per wake-up so one busy listener cannot starve the loop.
        for _ in 0..<64 {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let result: IOResult<Int>
            do throws(POSIXError) {
                result = try syscall("accept4") {
                    withUnsafeMutableBytes(of: &storage) { raw in
                        Int(accept4(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length,
                                    Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)))
                    }
                }
            } catch {
                switch error.code {
                case ECONNABORTED, EPROTO, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH, EOPNOTSUPP, ENETUNREACH:
                    continue
                default:
                    // EMFILE/ENFILE/ENOBUFS: level-triggered epoll would spin, so pause 100 ms.
                    pauseAccepting(on: loop)
                    return
                }
            }
            guard case .done(let clientFD) = result else { return }
            let connection = TCPConnection(fd: Int32(clientFD), loop: loop,
                                           remoteAddress: SocketAddress(storage: storage, length: length))
            acceptor(connection)
            connection.activate()
        }
    }

    private func pauseAccepting(on loop: EventLoop) {
        guard !isPaused else { return }
        isPaused = true
        loop.modify(self, events: 0)
        loop.scheduleTimer(after: .milliseconds(100)) { [weak self] in
            guard let self, !self.isClosed else { return }
            self.isPaused = false
            loop.modify(self, events: EPOLLIN.rawValue)
        }
    }
}
