/// The protocol spoken on a connection. A connection can switch protocol (HTTP →
/// WebSocket) by assigning a new handler; the old one passes on any bytes it read ahead.
/// Every call arrives on the connection's loop thread.
public protocol ConnectionHandler: AnyObject {
    /// Bytes arrived. `bytes` points into the loop's read buffer and is valid only
    /// during this call: copy what you keep.
    func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection)

    /// The peer closed its sending side (read returned 0). Output may still be sent.
    /// The default closes once queued output is written.
    func receivedEOF(on connection: TCPConnection)

    /// The outbound queue emptied after the socket had pushed back (EPOLLOUT fired).
    func drained(_ connection: TCPConnection)

    /// The connection is closed (by either side); `error` is set when a socket error
    /// caused it. Called exactly once; afterwards the connection drops its handler.
    func closed(_ connection: TCPConnection, error: POSIXError?)
}

extension ConnectionHandler {
    public func receivedEOF(on connection: TCPConnection) { connection.close() }
    public func drained(_ connection: TCPConnection) {}
}
