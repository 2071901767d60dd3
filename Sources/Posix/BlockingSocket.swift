import CLinux
import Glibc

/// A plain blocking TCP client for tests, tools and probes: each send or receive waits at
/// most the socket's timeout, or until the deadline it is given. Not for loop threads.
public final class BlockingSocket {
    private var fd: Int32

    /// Connects to `host:port`; each later send or receive waits at most `timeout`.
    public init(host: String, port: Int, timeout: Duration = .seconds(5)) throws(POSIXError) {
        let address = try SocketAddress(host: host, port: port)
        fd = Int32(try syscallOrThrow("socket") {
            Int(socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0))
        })
        let (seconds, attoseconds) = timeout.components
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, size)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, size)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let fd = self.fd
        do {
            _ = try syscallOrThrow("connect") { address.withSockaddr { Int(connect(fd, $0, $1)) } }
        } catch {
            closeDescriptor(fd)
            self.fd = -1
            throw error
        }
    }

    /// Connects to `host:port` by `deadline` (a non-blocking connect and `poll`); pass a
    /// deadline to each later call too. Past the deadline a call throws `ETIMEDOUT`.
    public init(host: String, port: Int, deadline: ContinuousClock.Instant) throws(POSIXError) {
        let address = try SocketAddress(host: host, port: port)
        fd = Int32(try syscallOrThrow("socket") {
            Int(socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0))
        })
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let fd = self.fd
        do throws(POSIXError) {
            let started = address.withSockaddr { connect(fd, $0, $1) } == 0
            if !started {
                let code = clinux_errno()
                guard code == EINPROGRESS || code == EINTR else { throw POSIXError(code: code, call: "connect") }
                try wait(for: Int16(POLLOUT), deadline: deadline)
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                guard error == 0 else { throw POSIXError(code: error, call: "connect") }
            }
            // Blocking again, as every socket of this type is; deadline calls pass MSG_DONTWAIT.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        } catch {
            closeDescriptor(fd)
            self.fd = -1
            throw error
        }
    }

    deinit { close() }

    /// Sends all of `bytes`. A timeout throws `EAGAIN`.
    public func send(_ bytes: [UInt8]) throws(POSIXError) {
        var offset = 0
        while offset < bytes.count {
            let start = offset
            let sent = try syscallOrThrow("send") {
                bytes.withUnsafeBytes { raw in Glibc.send(fd, raw.baseAddress! + start, raw.count - start, Int32(MSG_NOSIGNAL)) }
            }
            offset += sent
        }
    }

    public func send(_ text: String) throws(POSIXError) { try send(Array(text.utf8)) }

    /// Up to `maxCount` bytes; empty at end of stream. A timeout throws `EAGAIN`.
    public func receive(maxCount: Int = 65536) throws(POSIXError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxCount)
        let count = try syscallOrThrow("recv") {
            buffer.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress, raw.count, 0) }
        }
        buffer.removeSubrange(count...)
        return buffer
    }

    /// Sends all of `bytes` by `deadline`.
    public func send(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(POSIXError) {
        var offset = 0
        while offset < bytes.count {
            let start = offset
            let result = try syscall("send") {
                bytes.withUnsafeBytes { raw in
                    Glibc.send(fd, raw.baseAddress! + start, raw.count - start, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
            }
            switch result {
            case .done(let sent): offset += sent
            case .wouldBlock: try wait(for: Int16(POLLOUT), deadline: deadline)
            }
        }
    }

    /// Up to `maxCount` bytes by `deadline`; empty at end of stream.
    public func receive(maxCount: Int = 65536, deadline: ContinuousClock.Instant) throws(POSIXError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxCount)
        while true {
            let result = try syscall("recv") {
                buffer.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT)) }
            }
            switch result {
            case .done(let count):
                buffer.removeSubrange(count...)
                return buffer
            case .wouldBlock:
                try wait(for: Int16(POLLIN), deadline: deadline)
            }
        }
    }

    /// Waits until the socket is ready for `events`; `ETIMEDOUT` at the deadline.
    private func wait(for events: Int16, deadline: ContinuousClock.Instant) throws(POSIXError) {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { throw POSIXError(code: ETIMEDOUT, call: "poll") }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var poller = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&poller, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && clinux_errno() != EINTR { throw POSIXError(code: clinux_errno(), call: "poll") }
        }
    }

    /// Everything until the peer closes (or the timeout throws).
    public func receiveUntilClosed() throws(POSIXError) -> [UInt8] {
        var all: [UInt8] = []
        while true {
            let chunk = try receive()
            if chunk.isEmpty { return all }
            all += chunk
        }
    }

    /// Bytes that have arrived and are not yet read (`FIONREAD`): lets a test wait for the
    /// peer's answer to be here without reading it.
    public var unreadByteCount: Int {
        var count: Int32 = 0
        guard fd >= 0, ioctl(fd, UInt(FIONREAD), &count) == 0 else { return 0 }
        return Int(count)
    }

    /// Half-closes: the peer reads end of stream, we can still receive.
    public func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes with RST instead of FIN (SO_LINGER 0), like a crashed client.
    public func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close()
    }

    public func close() {
        guard fd >= 0 else { return }
        closeDescriptor(fd)
        fd = -1
    }
}
