import CLinux
import Glibc

/// `IP_BIND_ADDRESS_NO_PORT` (linux/in.h, since 4.2); Glibc's headers do not export it.
private let ipBindAddressNoPort: Int32 = 24

extension TCPConnection {
    /// Opens an outbound connection on `loop` (call on its thread): a non-blocking socket,
    /// optionally bound to `source` first, then a non-blocking `connect`.
    ///
    /// `handler` is installed before the socket is registered. Bytes written before the
    /// connection completes wait in the queue (the kernel answers would-block until then) and
    /// go out when it does; a refused or failed connect closes the connection with its error.
    ///
    /// A `source` with port 0 defers the port choice to `connect` (`IP_BIND_ADDRESS_NO_PORT`),
    /// so each source address has the whole ephemeral range towards each destination: many
    /// source addresses (127.0.0.x) let one machine open more connections than one address has
    /// ports.
    public static func connect(to remote: SocketAddress, from source: SocketAddress? = nil, on loop: EventLoop,
                               handler: ConnectionHandler) throws(POSIXError) -> TCPConnection {
        precondition(loop.inEventLoop, "TCPConnection.connect must be called on its loop")
        let fd = Int32(try syscallOrThrow("socket") {
            Int(socket(remote.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0))
        })
        do throws(POSIXError) {
            if let source {
                var one: Int32 = 1
                if source.port == 0 {
                    // Best effort: without it the kernel picks a port at bind time instead.
                    _ = setsockopt(fd, Int32(IPPROTO_IP), ipBindAddressNoPort, &one, socklen_t(MemoryLayout<Int32>.size))
                }
                _ = try syscallOrThrow("bind") { source.withSockaddr { Int(bind(fd, $0, $1)) } }
            }
            // A non-blocking connect is not restarted after EINTR: it goes on in the background
            // like EINPROGRESS, and the loop learns the outcome from EPOLLOUT/EPOLLERR.
            if remote.withSockaddr({ Glibc.connect(fd, $0, $1) }) != 0 {
                let code = clinux_errno()
                guard code == EINPROGRESS || code == EINTR else { throw POSIXError(code: code, call: "connect") }
            }
        } catch {
            closeDescriptor(fd)
            throw error
        }
        let connection = TCPConnection(fd: fd, loop: loop, remoteAddress: remote)
        connection.handler = handler
        connection.activate()
        return connection
    }
}
