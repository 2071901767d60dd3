import Posix
import WebSocketClient

/// What a set of viewers saw; shards and worker processes merge these.
struct ViewerTotals: Codable, Sendable {
    var opened = 0
    var failed = 0
    /// Closed by the server or the network during the run.
    var dropped = 0
    var ticks = 0
    var otherMessages = 0
    /// Ticks that arrived after a later one (never expected: the server keeps order).
    var outOfOrder = 0
    /// Sum over viewers of the ticks of the run's range that never arrived.
    var missing = 0
    /// Viewers that missed at least one tick.
    var viewersWithGaps = 0
    /// The most ticks one viewer missed.
    var worstViewerMissing = 0
    /// Ticks whose `at` lay in the future (clock trouble; counted as 0 ms).
    var negativeLatencies = 0
    var minSeq: Int?
    var maxSeq: Int?
    /// CPU seconds the generator processes used from the start of the run to its end.
    var generatorCPUSeconds = 0.0
    /// Seconds the generator's threads waited for a CPU over the same span.
    var generatorRunqueueWaitSeconds = 0.0
    var buckets: [[UInt64]] = []
    var latencySum: UInt64 = 0
    var latencyMin: UInt64 = 0
    var latencyMax: UInt64 = 0
    var failureReasons: [String: Int] = [:]
    var dropReasons: [String: Int] = [:]
    var errors: [String: Int] = [:]

    var histogram: LatencyHistogram {
        LatencyHistogram(buckets: buckets.compactMap { $0.count == 2 ? (Int($0[0]), $0[1]) : nil },
                         sum: latencySum, min: latencyMin, max: latencyMax)
    }

    mutating func setHistogram(_ histogram: LatencyHistogram) {
        buckets = histogram.nonEmptyBuckets.map { [UInt64($0.index), $0.count] }
        latencySum = histogram.sum
        latencyMin = histogram.count == 0 ? 0 : histogram.min
        latencyMax = histogram.max
    }

    mutating func merge(_ other: ViewerTotals) {
        var combined = histogram
        combined.merge(other.histogram)
        opened += other.opened
        failed += other.failed
        dropped += other.dropped
        ticks += other.ticks
        otherMessages += other.otherMessages
        outOfOrder += other.outOfOrder
        missing += other.missing
        viewersWithGaps += other.viewersWithGaps
        worstViewerMissing = max(worstViewerMissing, other.worstViewerMissing)
        negativeLatencies += other.negativeLatencies
        generatorCPUSeconds += other.generatorCPUSeconds
        generatorRunqueueWaitSeconds += other.generatorRunqueueWaitSeconds
        minSeq = [minSeq, other.minSeq].compactMap { $0 }.min()
        maxSeq = [maxSeq, other.maxSeq].compactMap { $0 }.max()
        failureReasons.merge(other.failureReasons, uniquingKeysWith: +)
        dropReasons.merge(other.dropReasons, uniquingKeysWith: +)
        errors.merge(other.errors, uniquingKeysWith: +)
        setHistogram(combined)
    }
}

/// Viewers of a draw room: each tick's latency (receive wall clock − the tick's `at`) and
/// per-viewer sequence bookkeeping, with no allocation per tick.
final class ViewerShard: FleetShard {
    private var histogram = LatencyHistogram()
    private var lastSeq: [Int] = []
    private var received: [Int] = []
    private var ticks = 0
    private var otherMessages = 0
    private var outOfOrder = 0
    private var negativeLatencies = 0
    private var minSeq = Int.max
    private var maxSeq = Int.min
    private var errors: [String: Int] = [:]

    override init(loop: EventLoop, plan: PeerPlan, progress: FleetProgress, count: Int, firstGlobalIndex: Int) {
        super.init(loop: loop, plan: plan, progress: progress, count: count, firstGlobalIndex: firstGlobalIndex)
        lastSeq = [Int](repeating: Int.min, count: count)
        received = [Int](repeating: 0, count: count)
    }

    override func didReceive(_ bytes: UnsafeRawBufferPointer, from peer: WebSocketPeer, at receivedAt: Double) {
        guard let tick = TickFields.parse(bytes) else {
            otherMessages += 1
            if JSONFieldScanner.hasType("error", in: bytes) {
                errors[JSONFieldScanner.string("code", in: bytes) ?? "?", default: 0] += 1
            }
            return
        }
        ticks += 1
        let latency = receivedAt - tick.at
        if latency < 0 { negativeLatencies += 1 }
        histogram.record(latency > 0 ? UInt64(latency * 1000) : 0)
        let index = peer.index
        if tick.seq <= lastSeq[index] { outOfOrder += 1 }
        lastSeq[index] = max(lastSeq[index], tick.seq)
        received[index] += 1
        if tick.seq < minSeq { minSeq = tick.seq }
        if tick.seq > maxSeq { maxSeq = tick.seq }
    }

    /// Ticks received so far and the latency histogram (for windows of a run).
    var tickCount: Int { ticks }
    var latencies: LatencyHistogram { histogram }

    /// Totals for the run whose ticks were numbered `first…last` (as the host saw them).
    func totals(first: Int?, last: Int?) -> ViewerTotals {
        var totals = ViewerTotals()
        totals.opened = peers.filter(\.wasOpened).count
        totals.failed = failureReasons.values.reduce(0, +)
        totals.dropped = dropReasons.values.reduce(0, +)
        totals.ticks = ticks
        totals.otherMessages = otherMessages
        totals.outOfOrder = outOfOrder
        totals.negativeLatencies = negativeLatencies
        totals.minSeq = minSeq == .max ? nil : minSeq
        totals.maxSeq = maxSeq == .min ? nil : maxSeq
        let low = [first, totals.minSeq].compactMap { $0 }.min()
        let high = [last, totals.maxSeq].compactMap { $0 }.max()
        if let low, let high {
            let expected = high - low + 1
            for (index, peer) in peers.enumerated() where peer.wasOpened {
                let missing = max(0, expected - received[index])
                totals.missing += missing
                if missing > 0 { totals.viewersWithGaps += 1 }
                totals.worstViewerMissing = max(totals.worstViewerMissing, missing)
            }
        }
        totals.setHistogram(histogram)
        totals.failureReasons = failureReasons
        totals.dropReasons = dropReasons
        totals.errors = errors
        return totals
    }
}
