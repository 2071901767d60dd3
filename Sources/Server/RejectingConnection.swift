import HTTPCore
import Posix

/// Over the connection cap: answer the first request with 503 and close, instead of
/// holding resources. A client that sends nothing is closed after a second.
final class RejectingConnection: ConnectionHandler {
    private let context: ServerContext
    private let loopState: LoopState
    private var answered = false

    init(context: ServerContext, loopState: LoopState, connection: TCPConnection) {
        self.context = context
        self.loopState = loopState
        loopState.loop.scheduleTimer(after: .seconds(1)) { [weak connection] in connection?.close() }
    }

    func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
        guard !answered else { return }
        answered = true
        let body = Array("Service Unavailable: too many connections, try again shortly\n".utf8)
        var head = HTTPResponseHead(status: .serviceUnavailable, headers: [
            "Content-Type": "text/plain; charset=utf-8",
            "Retry-After": "5",
            "Content-Length": String(body.count),
            "Connection": "close",
        ]).serialized()
        head.removeLast(2)
        head += loopState.dateLine + context.securityHeaders + [13, 10]
        connection.write(head + body)
        context.metrics.countResponse(status: 503, bytes: head.count + body.count)
        connection.close()
    }

    func closed(_ connection: TCPConnection, error: POSIXError?) {}
}
