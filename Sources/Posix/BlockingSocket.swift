import CLinux
import Glibc

/// A plain blocking TCP client with send/receive timeouts, for tests, tools and
/// probes. Not for loop threads.
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
