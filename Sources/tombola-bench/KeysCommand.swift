import Glibc
import Posix
import WebSocketClient

/// Calculator sessions that press keys one at a time, each waiting for the `display` that
/// answers its `seq` (docs/PROTOCOL.md, `/ws/calc`).
final class CalcShard: FleetShard {
    /// A short cycle that keeps the display small: 12 + 3 = 15, then clear.
    static let cycle = ["1", "2", "+", "3", "=", "C"]

    let keysPerClient: Int
    /// Pause between a reply and the next key (a person typing); nil presses at once.
    let interval: Duration?
    /// While false, answers still arrive but no new key is pressed and nothing is timed.
    var isPressing = true
    private(set) var histogram = LatencyHistogram()
    private var sentAt: [UInt64] = []
    private var nextSeq: [Int] = []
    private(set) var errors: [String: Int] = [:]
    private(set) var unexpected = 0
    /// Peers from this global index on pull digits instead of typing (issue 30's benchmark).
    let firstPuller: Int
    private(set) var digitsPulled = 0
    private(set) var pullerRefusals: [String: Int] = [:]
    /// The value a puller expands: √2 · π (inexact, so every digit is recomputed).
    static let pullerKeys = ["2", "sqrt", "*", "pi", "="]

    init(loop: EventLoop, plan: PeerPlan, progress: FleetProgress, count: Int, firstGlobalIndex: Int, keysPerClient: Int,
         interval: Duration? = nil, firstPuller: Int = .max) {
        self.keysPerClient = keysPerClient
        self.interval = interval
        self.firstPuller = firstPuller
        super.init(loop: loop, plan: plan, progress: progress, count: count, firstGlobalIndex: firstGlobalIndex)
        sentAt = [UInt64](repeating: 0, count: count)
        nextSeq = [Int](repeating: 1, count: count)
    }

    private func isPuller(_ peer: WebSocketPeer) -> Bool { firstGlobalIndex + peer.index >= firstPuller }

    override func didOpen(_ peer: WebSocketPeer) {
        if isPuller(peer) {
            // A puller never finishes by itself: the run ends when the typists do.
            progress.finished.add(1, ordering: .relaxed)
            for (offset, key) in Self.pullerKeys.enumerated() {
                peer.send(text: #"{"type":"key","key":"\#(key)","seq":\#(offset + 1)}"#)
            }
            pull(peer)
            return
        }
        press(peer)
    }

    /// Asks for the first 1,000 digits after the point of the puller's value.
    private func pull(_ peer: WebSocketPeer) {
        guard isPressing, peer.isOpen else { return }
        peer.send(text: #"{"type":"digits","position":1,"count":1000}"#)
    }

    private func pulled(_ bytes: UnsafeRawBufferPointer, from peer: WebSocketPeer) {
        if JSONFieldScanner.hasType("digits", in: bytes) {
            digitsPulled += 1
            pull(peer)
        } else if JSONFieldScanner.hasType("error", in: bytes) {
            // busy or rate_limited: ask again a little later
            pullerRefusals[JSONFieldScanner.string("code", in: bytes) ?? "?", default: 0] += 1
            loop.scheduleTimer(after: .milliseconds(20)) { self.pull(peer) }
        }
    }

    private func press(_ peer: WebSocketPeer) {
        guard isPressing, peer.isOpen else { return }
        let seq = nextSeq[peer.index]
        let key = Self.cycle[(seq - 1) % Self.cycle.count]
        sentAt[peer.index] = MonotonicClock.nanoseconds()
        peer.send(text: #"{"type":"key","key":"\#(key)","seq":\#(seq)}"#)
    }

    override func didReceive(_ bytes: UnsafeRawBufferPointer, from peer: WebSocketPeer, at receivedAt: Double) {
        let now = MonotonicClock.nanoseconds()
        let index = peer.index
        if isPuller(peer) {
            pulled(bytes, from: peer)
            return
        }
        if JSONFieldScanner.hasType("error", in: bytes) {
            errors[JSONFieldScanner.string("code", in: bytes) ?? "?", default: 0] += 1
        }
        guard JSONFieldScanner.hasType("display", in: bytes) || JSONFieldScanner.hasType("error", in: bytes),
              let seq = JSONFieldScanner.integer("seq", in: bytes),
              seq > 0 else { return }  // seq 0 (or null): the display sent on open
        guard seq == nextSeq[index], nextSeq[index] <= keysPerClient else {
            unexpected += 1
            return
        }
        if isPressing { histogram.record((now &- sentAt[index]) / 1000) }
        nextSeq[index] += 1
        if nextSeq[index] > keysPerClient {
            progress.finished.add(1, ordering: .relaxed)
            peer.close()
        } else if let interval {
            loop.scheduleTimer(after: interval) { self.press(peer) }
        } else {
            press(peer)
        }
    }

    override func didClose(_ peer: WebSocketPeer, reason: PeerCloseReason) {
        if isPuller(peer) { return }
        // A session that ends early will never finish: count it so the run does not wait for it.
        if nextSeq[peer.index] <= keysPerClient {
            nextSeq[peer.index] = keysPerClient + 1
            progress.finished.add(1, ordering: .relaxed)
        }
    }
}

/// `keys`: N calculator sessions, K keys each, round-trip latency per key.
struct KeysCommand {
    static let usage = """
        tombola-bench keys --clients N --keys K [--url http://127.0.0.1:8080] [--path /ws/calc]
                           [--interval-ms MS] [--threads T] [--timeout SECONDS] [--deflate]
                           [--digits-pullers P]
        --digits-pullers P: P more sessions each pull the first 1,000 digits of √2·π again and
        again while the others type (the keys are timed; the pulls are counted).
        """

    var target: BenchTarget
    var clients: Int
    var keys: Int
    var path: String
    var threads: Int
    var timeout: Int
    var deflate: Bool
    var intervalMilliseconds: Int
    var pullers: Int

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments, switches: ["deflate"])
        target = try BenchTarget(url: args.string("url", default: "http://127.0.0.1:8080"))
        clients = try args.int("clients", default: 10, range: 1...100_000)
        keys = try args.int("keys", default: 1000, range: 1...10_000_000)
        path = args.string("path", default: "/ws/calc")
        threads = try args.int("threads", default: 1, range: 1...64)
        timeout = try args.int("timeout", default: 120, range: 1...3600)
        deflate = args.flag("deflate")
        intervalMilliseconds = try args.int("interval-ms", default: 0, range: 0...60_000)
        pullers = try args.int("digits-pullers", default: 0, range: 0...100)
        try args.finish()
    }

    func run() throws(BenchError) -> Report {
        let limit = SystemLimits.raiseDescriptorLimit()
        guard clients + 64 <= limit else { throw .usage("\(clients) clients exceed the descriptor limit \(limit)") }
        let group: EventLoopGroup
        do { group = try EventLoopGroup(loopCount: threads) } catch { throw .failed("event loop: \(error)") }
        defer { group.shutdown() }
        let plan = PeerPlan(target: target, path: path, deflate: deflate, sources: BenchTarget.sourceAddresses(count: 4))
        let progress = FleetProgress()
        let keys = self.keys
        let interval: Duration? = intervalMilliseconds > 0 ? .milliseconds(intervalMilliseconds) : nil
        let clients = self.clients
        let fleet = Fleet(group: group, total: clients + pullers, progress: progress) { loop, count, first in
            CalcShard(loop: loop, plan: plan, progress: progress, count: count, firstGlobalIndex: first, keysPerClient: keys,
                      interval: interval, firstPuller: clients)
        }
        let started = ContinuousClock.now
        fleet.begin()
        let completed = fleet.waitFor(timeout: .seconds(timeout)) {
            progress.settled >= clients + pullers
                && progress.finished.load(ordering: .relaxed) >= progress.opened.load(ordering: .relaxed)
        }
        let elapsed = ContinuousClock.now - started
        let histogram = fleet.collect { $0.histogram }.reduce(into: LatencyHistogram()) { $0.merge($1) }
        let errors = fleet.collect { $0.errors }.reduce(into: [String: Int]()) { $0.merge($1, uniquingKeysWith: +) }
        let unexpected = fleet.collect { $0.unexpected }.reduce(0, +)
        let failures = fleet.collect { $0.failureReasons }.reduce(into: [String: Int]()) { $0.merge($1, uniquingKeysWith: +) }
        let drops = fleet.collect { $0.dropReasons }.reduce(into: [String: Int]()) { $0.merge($1, uniquingKeysWith: +) }
        let digitsPulled = fleet.collect { $0.digitsPulled }.reduce(0, +)
        let refusals = fleet.collect { $0.pullerRefusals }.reduce(into: [String: Int]()) { $0.merge($1, uniquingKeysWith: +) }
        fleet.closeAll()

        var report = Report(command: "keys")
        report.row("target", target.url + path, key: "url", .string(target.url + path))
        report.row("clients × keys", "\(clients) × \(keys)", key: "clients", .int(clients))
        report.field("keys", .int(keys))
        report.field("intervalMs", .int(intervalMilliseconds))
        report.row("sessions opened", String(progress.opened.load(ordering: .relaxed)) + failures.summaryText,
                   key: "opened", .int(progress.opened.load(ordering: .relaxed)))
        report.row("sessions dropped", String(progress.dropped.load(ordering: .relaxed)) + drops.summaryText,
                   key: "dropped", .int(progress.dropped.load(ordering: .relaxed)))
        report.row("round trips", "\(histogram.count) of \(clients * keys)\(completed ? "" : " (timed out)")",
                   key: "roundTrips", .int(Int(histogram.count)))
        report.row("throughput", String(format: "%.0f keys/s", Double(histogram.count) / max(elapsed.seconds, 1e-9)),
                   key: "keysPerSecond", .double((Double(histogram.count) / max(elapsed.seconds, 1e-9)).rounded()))
        report.row("round trip p50", Format.ms(histogram.percentile(50)), key: "p50Ms", Format.msValue(histogram.percentile(50)))
        report.row("round trip p90", Format.ms(histogram.percentile(90)), key: "p90Ms", Format.msValue(histogram.percentile(90)))
        report.row("round trip p99", Format.ms(histogram.percentile(99)), key: "p99Ms", Format.msValue(histogram.percentile(99)))
        report.row("round trip p99.9", Format.ms(histogram.percentile(99.9)), key: "p999Ms", Format.msValue(histogram.percentile(99.9)))
        report.row("round trip max", Format.ms(histogram.count > 0 ? histogram.max : nil), key: "maxMs",
                   Format.msValue(histogram.count > 0 ? histogram.max : nil))
        report.row("error replies", String(errors.values.reduce(0, +)) + errors.summaryText, key: "errors", errors.jsonObject)
        report.row("unmatched replies", String(unexpected), key: "unmatched", .int(unexpected))
        if pullers > 0 {
            report.row("digit pullers", "\(pullers): \(digitsPulled) × 1,000 digits" + refusals.summaryText,
                       key: "digitsPulled", .int(digitsPulled))
        }
        return report
    }
}
