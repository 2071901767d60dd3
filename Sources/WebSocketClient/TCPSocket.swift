import Glibc

/// A non-blocking TCP socket with deadline-bounded reads and writes (poll). Owned by one
/// client; closes once.
final class TCPSocket {
    private var descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close() }

    func close() {
        if descriptor >= 0 {
            _ = Glibc.close(descriptor)
            descriptor = -1
        }
    }

    static func connect(host: String, port: Int, deadline: ContinuousClock.Instant) throws(WebSocketClient.ClientError) -> TCPSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw .resolveFailed(host: host)
        }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { lastError = errno; continue }
            let candidate = TCPSocket(descriptor: fd)
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return candidate }
            guard errno == EINPROGRESS else { lastError = errno; continue }
            guard try candidate.wait(for: Int16(POLLOUT), deadline: deadline) else { throw .timedOut }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error == 0 { return candidate }
            lastError = error
        }
        throw .connectFailed(errno: lastError)
    }

    /// Waits until the socket is ready; false at the deadline.
    private func wait(for events: Int16, deadline: ContinuousClock.Instant) throws(WebSocketClient.ClientError) -> Bool {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var poller = pollfd(fd: descriptor, events: events, revents: 0)
            let result = poll(&poller, 1, milliseconds)
            if result > 0 { return true }
            if result < 0 && errno != EINTR { throw .socketError(errno: errno) }
        }
    }

    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(WebSocketClient.ClientError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written >= 0 {
                offset += written
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                guard try wait(for: Int16(POLLOUT), deadline: deadline) else { throw .timedOut }
            } else if errno != EINTR {
                throw .socketError(errno: errno)
            }
        }
    }

    /// Up to 64 KiB; empty when the peer closed.
    func read(deadline: ContinuousClock.Instant) throws(WebSocketClient.ClientError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return Array(buffer[0..<count]) }
            if errno == ECONNRESET { return [] }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                guard try wait(for: Int16(POLLIN), deadline: deadline) else { throw .timedOut }
            } else if errno != EINTR {
                throw .socketError(errno: errno)
            }
        }
    }
}
