import Posix
import Synchronization
import WebSocketClient

/// What a storm's `state` must show to count as correct, learned from the first snapshot.
struct ExpectedState: Sendable {
    var phase: String
    /// The settings' `hash` (the summary's) and the pending `commitment`.
    var settingsHash: String?
    var commitment: String?
}

/// Counters the main thread reads while a storm runs.
final class StormProgress: Sendable {
    /// Viewers whose latest connection delivered a correct `state`.
    let correct = Atomic<Int>(0)
    let wrong = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
}

/// Viewers of one loop that can all drop at once and come back, each at its own moment: the
/// time to a correct `state` is measured from that moment (when the phone wants back in), so
/// time spent queued behind the bench's own handshake limit counts too.
final class StormShard: WebSocketPeerDelegate {
    private struct Slot {
        var peer: WebSocketPeer?
        var generation = 0
        /// When this viewer (re)started connecting; nil once its state arrived.
        var wantedAt: ContinuousClock.Instant?
        /// Tick bookkeeping after the state of the current connection.
        var firstTick: Int?
        var lastTick: Int?
        var ticks = 0
        var statedAt: Double?
    }

    let loop: EventLoop
    let plan: PeerPlan
    let progress: StormProgress
    let firstGlobalIndex: Int
    private var slots: [Slot]
    private var waiting: [Int] = []
    private var pending = 0
    private var opening = false
    private(set) var histogram = LatencyHistogram()
    private(set) var stateBytes = 0
    private(set) var wrongSamples: [String] = []
    private(set) var failures: [String: Int] = [:]
    private var expected: ExpectedState?
    /// Ticks counted only after `countTicksAfter` (the storm), per returned viewer.
    private var countTicksFrom: Double = .infinity
    /// After `awaitResult(since:)`: when each viewer's next `result` arrived, and its size.
    private var resultSince: Double?
    private(set) var resultLatencies = LatencyHistogram()
    private(set) var resultBytes = 0
    private(set) var resultsSeen = 0

    init(loop: EventLoop, plan: PeerPlan, progress: StormProgress, count: Int, firstGlobalIndex: Int) {
        self.loop = loop
        self.plan = plan
        self.progress = progress
        self.firstGlobalIndex = firstGlobalIndex
        slots = Array(repeating: Slot(), count: count)
    }

    /// Connects every viewer now (the steady audience).
    func begin(expecting expected: ExpectedState?) {
        self.expected = expected
        let now = ContinuousClock.now
        for index in slots.indices {
            slots[index].wantedAt = now
            waiting.append(index)
        }
        openMore()
    }

    /// Sets what a correct state shows from now on, and forgets the latencies so far.
    func expect(_ expected: ExpectedState) {
        self.expected = expected
        histogram = LatencyHistogram()
        wrongSamples = []
        failures = [:]
    }

    /// Every viewer's socket goes at once (no close frame, as when Wi-Fi drops), and each comes
    /// back after its own delay, spread evenly at random over `window`.
    func storm(window: Duration, countTicksAfter wallMs: Double) {
        countTicksFrom = wallMs
        var rng = SystemRandomNumberGenerator()
        let now = ContinuousClock.now
        let windowNs = max(1, window.components.seconds * 1_000_000_000 + window.components.attoseconds / 1_000_000_000)
        for index in slots.indices {
            slots[index].generation += 1
            let peer = slots[index].peer
            slots[index].peer = nil
            peer?.connection?.closeNow()
            slots[index].ticks = 0
            slots[index].firstTick = nil
            slots[index].lastTick = nil
            slots[index].statedAt = nil
            let delay = Duration.nanoseconds(Int64.random(in: 0..<windowNs, using: &rng))
            slots[index].wantedAt = now + delay
            let generation = slots[index].generation
            _ = loop.scheduleTimer(after: delay) {
                guard self.slots[index].generation == generation else { return }
                self.waiting.append(index)
                self.openMore()
            }
        }
    }

    private func openMore() {
        guard !opening else { return }
        opening = true
        defer { opening = false }
        var rng = SystemRandomNumberGenerator()
        while pending < plan.maxPendingPerLoop, !waiting.isEmpty {
            let index = waiting.removeFirst()
            let global = firstGlobalIndex + index
            pending += 1
            let peer = WebSocketPeer(index: index, delegate: self)
            slots[index].peer = peer
            let source = plan.sources.isEmpty ? nil : plan.sources[global % plan.sources.count]
            var nonce = [UInt8](repeating: 0, count: 16)
            for i in nonce.indices { nonce[i] = rng.next() }
            peer.start(remote: plan.target.address, source: source, hostHeader: plan.target.hostHeader, path: plan.path,
                       deflate: plan.deflate, on: loop, nonce: nonce, timeout: plan.handshakeTimeout)
        }
    }

    /// Closes every viewer (end of run).
    func closeAll() {
        waiting = []
        for index in slots.indices {
            slots[index].generation += 1
            slots[index].peer?.close()
        }
    }

    var openCount: Int { slots.reduce(0) { $0 + ($1.peer?.isOpen == true ? 1 : 0) } }

    /// Ticks the returned viewers got after their state, against the ticks the server sent meanwhile.
    func tickTotals() -> (received: Int, expected: Int) {
        var received = 0, expected = 0
        for slot in slots {
            guard let first = slot.firstTick, let last = slot.lastTick else { continue }
            received += slot.ticks
            expected += last - first + 1
        }
        return (received, expected)
    }

    // MARK: WebSocketPeerDelegate

    func peerDidOpen(_ peer: WebSocketPeer) {
        pending -= 1
        openMore()
    }

    func peer(_ peer: WebSocketPeer, receivedText bytes: UnsafeRawBufferPointer, receivedAt: Double) {
        let index = peer.index
        guard slots[index].peer === peer else { return }
        if let since = resultSince, JSONFieldScanner.hasType("result", in: bytes) {
            resultLatencies.record(UInt64(max(0, (receivedAt - since) * 1000)))
            resultBytes = max(resultBytes, bytes.count)
            resultsSeen += 1
            return
        }
        // A rolling snapshot holds a `tick` too (and, keys sorted, its "type" comes first): states first.
        let isState = Self.isState(bytes)
        if !isState, let tick = TickFields.parse(bytes) {
            guard slots[index].wantedAt == nil, receivedAt >= countTicksFrom else { return }
            if slots[index].firstTick == nil { slots[index].firstTick = tick.seq }
            slots[index].lastTick = max(slots[index].lastTick ?? tick.seq, tick.seq)
            slots[index].ticks += 1
            return
        }
        guard let wantedAt = slots[index].wantedAt, isState else { return }
        slots[index].wantedAt = nil
        stateBytes = max(stateBytes, bytes.count)
        let elapsed = ContinuousClock.now - wantedAt
        let phase = JSONFieldScanner.string("phase", in: bytes)
        let hash = JSONFieldScanner.string("hash", in: bytes)
        let commitment = JSONFieldScanner.string("commitment", in: bytes)
        if let expected, phase != expected.phase || hash != expected.settingsHash || commitment != expected.commitment {
            progress.wrong.add(1, ordering: .relaxed)
            if wrongSamples.count < 3 { wrongSamples.append("phase \(phase ?? "-") hash \(hash ?? "-") commitment \(commitment ?? "-")") }
            return
        }
        if expected == nil {
            expected = ExpectedState(phase: phase ?? "", settingsHash: hash, commitment: commitment)
        }
        histogram.record(UInt64(max(0, elapsed.seconds * 1_000_000)))
        progress.correct.add(1, ordering: .relaxed)
    }

    func peerDidClose(_ peer: WebSocketPeer, reason: PeerCloseReason) {
        let index = peer.index
        if !peer.wasOpened { pending -= 1 }
        guard slots[index].peer === peer else {
            openMore()
            return
        }
        if case .closedByUs = reason {} else {
            failures[reason.summary, default: 0] += 1
            if slots[index].wantedAt != nil { progress.failed.add(1, ordering: .relaxed) }
        }
        slots[index].peer = nil
        openMore()
    }

    /// From now on, time each viewer's next `result` from `wallMs` (when Stop was sent).
    func awaitResult(since wallMs: Double) {
        resultSince = wallMs
        resultLatencies = LatencyHistogram()
        resultsSeen = 0
    }

    private static let stateMarker = Array(#""type":"state""#.utf8)

    static func isState(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let marker = stateMarker
        guard bytes.count >= marker.count else { return false }
        var i = 0
        while i <= bytes.count - marker.count {
            if bytes[i] == marker[0] {
                var j = 1
                while j < marker.count && bytes[i + j] == marker[j] { j += 1 }
                if j == marker.count { return true }
            }
            i += 1
        }
        return false
    }

    /// The expectation the first snapshot set (nil before any).
    var learned: ExpectedState? { expected }
}
