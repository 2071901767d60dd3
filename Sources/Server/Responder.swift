import HTTPCore
import Posix

/// The one-shot way to answer a request: call `respond(_:)` exactly once, from any thread
/// (e.g. after a storage call). Responses on a connection still go out in request order.
/// A responder dropped without an answer sends 500, so a forgotten path cannot hang a client.
public final class Responder: Sendable {
    private let target: LoopBound<HTTPServerConnection>
    private let sequence: Int
    private let answered = AtomicFlag()
    /// The client's address, for logs and rate limits (`client.address`).
    public var remoteAddress: String { client.address }
    /// Who sent the request, as `--trusted-proxy` allows us to believe.
    public let client: ForwardedClient
    /// The connection's loop, for handlers that want to continue there.
    public var loop: EventLoop { target.loop }

    init(connection: HTTPServerConnection, loop: EventLoop, sequence: Int, client: ForwardedClient) {
        self.target = LoopBound(connection, loop: loop)
        self.sequence = sequence
        self.client = client
    }

    public func respond(_ response: HTTPResponse) {
        guard answered.set() else { return }
        let sequence = self.sequence
        if target.loop.inEventLoop {
            target.value.complete(sequence: sequence, with: response)
        } else {
            target.execute { $0.complete(sequence: sequence, with: response) }
        }
    }

    deinit {
        if answered.set() {
            let sequence = self.sequence
            target.execute { $0.complete(sequence: sequence, with: .text(.internalServerError)) }
        }
    }
}

import Synchronization

/// Set-once flag: `set()` returns true for the first caller only.
final class AtomicFlag: Sendable {
    private let storage = Atomic<Bool>(false)
    func set() -> Bool { !storage.exchange(true, ordering: .acquiringAndReleasing) }
}
