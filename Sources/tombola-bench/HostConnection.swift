import Posix

/// The host's connection, on its own loop.
final class HostConnection {
    let group: EventLoopGroup
    let fleet: Fleet<HostShard>

    init(options: ViewerOptions, key: String) throws(BenchError) {
        do { group = try EventLoopGroup(loopCount: 1) } catch { throw .failed("event loop: \(error)") }
        let plan = PeerPlan(target: options.target, path: options.path, deflate: options.deflate)
        let progress = FleetProgress()
        fleet = Fleet(group: group, total: 1, progress: progress) { loop, _, _ in
            HostShard(loop: loop, plan: plan, progress: progress, key: key)
        }
        fleet.begin()
        let ok = wait(timeout: .seconds(10)) { $0.isHost || !$0.errors.isEmpty || $0.closeReason != nil }
        let view = self.view
        guard ok, view.isHost else {
            close()
            let why = view.errors.first.map { "the server answered \($0)" } ?? view.closeReason ?? "no answer within 10 s"
            throw .failed("host authentication failed on \(options.target.url)\(options.path): \(why)")
        }
    }

    var view: HostView { fleet.collect { $0.view }[0] }

    func send(_ text: String) { _ = fleet.collect { $0.send(text); return 0 } }

    func wait(timeout: Duration, _ condition: (HostView) -> Bool) -> Bool {
        fleet.waitFor(timeout: timeout) { condition(view) }
    }

    func close() {
        fleet.closeAll(grace: .seconds(1))
        group.shutdown()
    }
}
