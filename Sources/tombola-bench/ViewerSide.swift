import Posix

/// Options shared by the fan-out command and its worker processes.
struct ViewerOptions: Sendable {
    var target: BenchTarget
    var code: String
    var viewers: Int
    var threads: Int
    var sources: Int
    var deflate: Bool
    var path: String { "/ws/draw/\(code)" }

    init(_ args: inout Arguments, viewersName: String) throws(BenchError) {
        target = try BenchTarget(url: args.string("url", default: "http://127.0.0.1:8080"))
        code = try args.required("code", hint: "the draw's public code")
        guard code.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else { throw .usage("bad --code \(code)") }
        viewers = try args.int(viewersName, default: 1000, range: 1...1_000_000)
        threads = try args.int("threads", default: 1, range: 1...64)
        sources = try args.int("sources", default: 16, range: 1...254)
        deflate = args.flag("deflate")
    }

    /// Arguments that rebuild these options in a worker.
    func workerArguments(viewers: Int, firstIndex: Int, target: BenchTarget? = nil) -> [String] {
        ["fanout-worker", "--url", (target ?? self.target).url, "--code", code, "--count", String(viewers), "--first-index", String(firstIndex),
         "--threads", String(threads), "--sources", String(sources)] + (deflate ? ["--deflate"] : [])
    }

    var settleTimeout: Duration { .seconds(30 + viewers / 200) }
}

/// The viewers of a run, wherever they live.
protocol ViewerSide {
    /// Waits until every viewer opened or failed; (opened, failed). The run starts now.
    func waitReady() -> (Int, Int)
    /// The run is over: totals for ticks `first…last`.
    func finish(first: Int?, last: Int?) -> ViewerTotals
    func close()
}

/// Viewers on this process's own loops.
final class InProcessViewers: ViewerSide {
    let group: EventLoopGroup
    let fleet: Fleet<ViewerShard>
    let options: ViewerOptions
    private var cpuAtStart = 0.0
    private var waitAtStart = 0.0

    init(options: ViewerOptions, count: Int? = nil, firstIndex: Int = 0) throws(BenchError) {
        self.options = options
        do { group = try EventLoopGroup(loopCount: options.threads) } catch { throw .failed("event loop: \(error)") }
        let plan = PeerPlan(target: options.target, path: options.path, deflate: options.deflate,
                            sources: BenchTarget.sourceAddresses(count: options.sources))
        let progress = FleetProgress()
        fleet = Fleet(group: group, total: count ?? options.viewers, progress: progress) { loop, count, first in
            ViewerShard(loop: loop, plan: plan, progress: progress, count: count, firstGlobalIndex: firstIndex + first)
        }
        fleet.begin()
    }

    func waitReady() -> (Int, Int) {
        _ = fleet.waitUntilSettled(timeout: options.settleTimeout)
        cpuAtStart = SystemLimits.ownCPUSeconds
        waitAtStart = ServerProcess.current.sample()?.runqueueWaitSeconds ?? 0
        return (fleet.progress.opened.load(ordering: .relaxed), fleet.progress.failed.load(ordering: .relaxed))
    }

    func finish(first: Int?, last: Int?) -> ViewerTotals {
        var totals = fleet.collect { $0.totals(first: first, last: last) }.reduce(into: ViewerTotals()) { $0.merge($1) }
        totals.generatorCPUSeconds = SystemLimits.ownCPUSeconds - cpuAtStart
        totals.generatorRunqueueWaitSeconds = (ServerProcess.current.sample()?.runqueueWaitSeconds ?? 0) - waitAtStart
        return totals
    }

    func close() {
        fleet.closeAll()
        group.shutdown()
    }
}
