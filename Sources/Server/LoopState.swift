import HTTPCore
import Posix

/// What the server keeps per loop: its open connections (for graceful shutdown) and a
/// `Date` header cached per second.
///
/// `@unchecked Sendable`: created before the loops start; afterwards every property is
/// used only on `loop`'s thread.
final class LoopState: @unchecked Sendable {
    let loop: EventLoop
    private var connections: [ObjectIdentifier: TCPConnection] = [:]
    private var cachedSecond = -1
    private var cachedDateLine: [UInt8] = []

    init(loop: EventLoop) {
        self.loop = loop
    }

    func track(_ connection: TCPConnection) {
        connections[ObjectIdentifier(connection)] = connection
    }

    func untrack(_ connection: TCPConnection) {
        connections[ObjectIdentifier(connection)] = nil
    }

    var openConnections: [TCPConnection] { Array(connections.values) }

    /// `Date: <IMF-fixdate>\r\n`.
    var dateLine: [UInt8] {
        let now = WallClock.unixSeconds()
        if now != cachedSecond {
            cachedSecond = now
            cachedDateLine = Array("Date: \(HTTPDate.string(forUnixSeconds: now))\r\n".utf8)
        }
        return cachedDateLine
    }
}

/// A handler that wants a say in graceful shutdown (e.g. a WebSocket sends a close frame).
/// Handlers without it are closed once their queued output is written.
public protocol GracefulShutdownHandling: AnyObject {
    /// Called on the connection's loop when the server begins shutting down. Finish what is
    /// in flight, then `connection.close()`; the server cuts whatever is left after the grace period.
    func beginGracefulShutdown(of connection: TCPConnection)
}
