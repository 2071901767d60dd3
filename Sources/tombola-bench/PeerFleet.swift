import Dispatch
import Glibc
import Posix
import Synchronization

/// Where and how peers connect.
struct PeerPlan: Sendable {
    var target: BenchTarget
    var path: String
    /// When set, peer i connects to `paths[i % paths.count]` instead (viewers spread over many rooms).
    var paths: [String] = []
    var deflate = false
    /// Source addresses, used round-robin by global peer index.
    var sources: [SocketAddress] = []
    /// Handshakes in flight per loop; more would overflow the server's accept backlog.
    var maxPendingPerLoop = 128
    /// A handshake not answered by then counts as failed (and frees its slot).
    var handshakeTimeout: Duration = .seconds(15)
}

/// Counters the main thread reads while the loops work.
final class FleetProgress: Sendable {
    let opened = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    /// Closed by the server or the network after opening (not by us).
    let dropped = Atomic<Int>(0)
    /// Peers that finished their scripted work (subclasses decide what that means).
    let finished = Atomic<Int>(0)

    var settled: Int { opened.load(ordering: .relaxed) + failed.load(ordering: .relaxed) }
}

/// The peers of one loop, opened at most `maxPendingPerLoop` at a time. Subclasses add what
/// each peer does. Loop-confined: created anywhere, then used only on `loop`.
class FleetShard: WebSocketPeerDelegate {
    let loop: EventLoop
    let plan: PeerPlan
    let progress: FleetProgress
    let count: Int
    /// Global index of this shard's first peer, for spreading source addresses.
    let firstGlobalIndex: Int
    private(set) var peers: [WebSocketPeer] = []
    private var nextToOpen = 0
    private var pending = 0
    private var isOpening = false
    private(set) var failureReasons: [String: Int] = [:]
    private(set) var dropReasons: [String: Int] = [:]

    init(loop: EventLoop, plan: PeerPlan, progress: FleetProgress, count: Int, firstGlobalIndex: Int) {
        self.loop = loop
        self.plan = plan
        self.progress = progress
        self.count = count
        self.firstGlobalIndex = firstGlobalIndex
    }

    /// Starts connecting (on the loop).
    func begin() {
        peers = (0..<count).map { WebSocketPeer(index: $0, delegate: self) }
        openMore()
    }

    private func openMore() {
        guard !isOpening else { return }
        isOpening = true
        defer { isOpening = false }
        var rng = SystemRandomNumberGenerator()
        while pending < plan.maxPendingPerLoop && nextToOpen < count {
            let peer = peers[nextToOpen]
            let global = firstGlobalIndex + nextToOpen
            nextToOpen += 1
            pending += 1
            let source = plan.sources.isEmpty ? nil : plan.sources[global % plan.sources.count]
            var nonce = [UInt8](repeating: 0, count: 16)
            for i in nonce.indices { nonce[i] = rng.next() }
            let path = plan.paths.isEmpty ? plan.path : plan.paths[global % plan.paths.count]
            peer.start(remote: plan.target.address, source: source, hostHeader: plan.target.hostHeader, path: path,
                       deflate: plan.deflate, on: loop, nonce: nonce, timeout: plan.handshakeTimeout)
        }
    }

    /// Sends a close frame on every open peer.
    func closeAll() {
        nextToOpen = count
        for peer in peers { peer.close() }
    }

    var openCount: Int { peers.reduce(0) { $0 + ($1.isOpen ? 1 : 0) } }

    // MARK: Hooks for subclasses

    func didOpen(_ peer: WebSocketPeer) {}
    func didReceive(_ bytes: UnsafeRawBufferPointer, from peer: WebSocketPeer, at receivedAt: Double) {}
    func didClose(_ peer: WebSocketPeer, reason: PeerCloseReason) {}

    // MARK: WebSocketPeerDelegate

    func peerDidOpen(_ peer: WebSocketPeer) {
        pending -= 1
        progress.opened.add(1, ordering: .relaxed)
        didOpen(peer)
        openMore()
    }

    func peer(_ peer: WebSocketPeer, receivedText bytes: UnsafeRawBufferPointer, receivedAt: Double) {
        didReceive(bytes, from: peer, at: receivedAt)
    }

    func peerDidClose(_ peer: WebSocketPeer, reason: PeerCloseReason) {
        if !peer.wasOpened {
            pending -= 1
            progress.failed.add(1, ordering: .relaxed)
            failureReasons[reason.summary, default: 0] += 1
            // Not inline: a synchronous connect failure arrives from inside `openMore`.
            if !isOpening { openMore() }
        } else if case .closedByUs = reason {
        } else {
            progress.dropped.add(1, ordering: .relaxed)
            dropReasons[reason.summary, default: 0] += 1
        }
        didClose(peer, reason: reason)
    }
}

extension PeerCloseReason {
    /// A short key for tallies (errno names stay in the bench's own output, never a server's).
    var summary: String {
        switch self {
        case .connectFailed(let error): return "connect: \(error)"
        case .handshakeFailed(let status): return status.map { "HTTP \($0) instead of 101" } ?? "handshake failed"
        case .handshakeTimedOut: return "handshake timed out"
        case .closedByServer(let code): return "server close \(code.map(String.init) ?? "without code")"
        case .socketClosed(let error): return error.map { "socket: \($0)" } ?? "socket closed"
        case .closedByUs: return "closed by us"
        }
    }
}

/// Shards spread over the loops of one group, driven from the main thread.
final class Fleet<Shard: FleetShard>: Sendable {
    let group: EventLoopGroup
    let progress: FleetProgress
    let shards: [LoopBound<Shard>]
    let total: Int

    /// Splits `total` peers over the group's loops; `make` builds each loop's shard.
    init(group: EventLoopGroup, total: Int, progress: FleetProgress,
         make: (_ loop: EventLoop, _ count: Int, _ firstGlobalIndex: Int) -> Shard) {
        self.group = group
        self.total = total
        self.progress = progress
        var shards: [LoopBound<Shard>] = []
        var first = 0
        for (i, loop) in group.loops.enumerated() {
            let count = total / group.loops.count + (i < total % group.loops.count ? 1 : 0)
            shards.append(LoopBound(make(loop, count, first), loop: loop))
            first += count
        }
        self.shards = shards
    }

    func begin() {
        for shard in shards { shard.execute { $0.begin() } }
    }

    /// Waits until every peer opened or failed, or until `timeout`; true when all settled.
    func waitUntilSettled(timeout: Duration) -> Bool {
        waitFor(timeout: timeout) { progress.settled >= total }
    }

    func waitFor(timeout: Duration, _ condition: () -> Bool) -> Bool {
        pollUntil(timeout: timeout, condition)
    }

    /// Runs `body` on every shard's loop and returns the results in shard order.
    func collect<R: Sendable>(_ body: @escaping @Sendable (Shard) -> R) -> [R] {
        collectOnLoops(shards, body)
    }

    /// Sends close frames everywhere and waits (at most `grace` plus a little) for the sockets to go.
    func closeAll(grace: Duration = .seconds(2)) {
        _ = collect { $0.closeAll(); return 0 }
        _ = waitFor(timeout: grace + .milliseconds(500)) {
            collect { $0.openCount }.reduce(0, +) == 0
        }
    }
}

/// Runs `body` on every shard's loop, waits for all of them, and returns the results in shard order.
func collectOnLoops<Shard, R: Sendable>(_ shards: [LoopBound<Shard>], _ body: @escaping @Sendable (Shard) -> R) -> [R] {
    let results = Mutex<[Int: R]>([:])
    let done = DispatchSemaphore(value: 0)
    for (i, shard) in shards.enumerated() {
        shard.execute { value in
            let result = body(value)
            results.withLock { $0[i] = result }
            done.signal()
        }
    }
    for _ in shards { done.wait() }
    return results.withLock { dict in (0..<shards.count).map { dict[$0]! } }
}

/// Polls `condition` every 10 ms until it holds (true) or `timeout` passes (false).
func pollUntil(timeout: Duration, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        usleep(10_000)
    }
    return true
}
