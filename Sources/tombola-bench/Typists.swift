import Posix
import WebSocketClient

/// Calculator sessions typing on `/ws/calc` beside a fan-out, on their own loop.
final class Typists {
    let group: EventLoopGroup
    let fleet: Fleet<CalcShard>

    init(options: ViewerOptions, clients: Int, intervalMilliseconds: Int) throws(BenchError) {
        do { group = try EventLoopGroup(loopCount: 1) } catch { throw .failed("event loop: \(error)") }
        let plan = PeerPlan(target: options.target, path: "/ws/calc", deflate: options.deflate)
        let progress = FleetProgress()
        let interval: Duration? = intervalMilliseconds > 0 ? .milliseconds(intervalMilliseconds) : nil
        fleet = Fleet(group: group, total: clients, progress: progress) { loop, count, first in
            CalcShard(loop: loop, plan: plan, progress: progress, count: count, firstGlobalIndex: first,
                      keysPerClient: Int.max - 1, interval: interval)
        }
        fleet.begin()
    }

    /// Stops typing and returns the round trips timed so far.
    func stop() -> LatencyHistogram {
        let histogram = fleet.collect { shard in
            shard.isPressing = false
            return shard.histogram
        }[0]
        fleet.closeAll(grace: .seconds(1))
        group.shutdown()
        return histogram
    }
}
