import Glibc
import Posix

/// Peers that only hold their connection; on `/ws/echo` they can prove they are alive.
final class IdleShard: FleetShard {
    private(set) var messages = 0
    private(set) var echoes = 0
    private var probe = ""

    override func didReceive(_ bytes: UnsafeRawBufferPointer, from peer: WebSocketPeer, at receivedAt: Double) {
        messages += 1
        if !probe.isEmpty, bytes.count == probe.utf8.count, bytes.elementsEqual(probe.utf8) { echoes += 1 }
    }

    /// Sends `text` on every open peer; echoes of it are counted.
    func probeAll(with text: String) {
        probe = text
        for peer in peers where peer.isOpen { peer.send(text: text) }
    }
}

/// `connect`: opens and holds N idle WebSocket connections; server memory per connection.
struct ConnectCommand {
    static let usage = """
        tombola-bench connect --connections N [--url http://127.0.0.1:8080] [--path /ws/echo]
                              [--hold SECONDS] [--server-pid PID] [--threads T] [--sources K] [--deflate]
        """

    var target: BenchTarget
    var connections: Int
    var path: String
    var hold: Double
    var serverPID: Int32?
    var threads: Int
    var sources: Int
    var deflate: Bool

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments, switches: ["deflate"])
        target = try BenchTarget(url: args.string("url", default: "http://127.0.0.1:8080"))
        connections = try args.int("connections", default: 1000, range: 1...1_000_000)
        path = args.string("path", default: "/ws/echo")
        hold = try args.double("hold", default: 5, range: 0...600)
        serverPID = try args.optionalInt("server-pid", range: 1...Int(Int32.max)).map { Int32($0) }
        threads = try args.int("threads", default: 1, range: 1...64)
        sources = try args.int("sources", default: 16, range: 1...254)
        deflate = args.flag("deflate")
        try args.finish()
    }

    func run() throws(BenchError) -> Report {
        let limit = SystemLimits.raiseDescriptorLimit()
        guard connections + 64 <= limit else {
            throw .usage("\(connections) connections need more descriptors than the limit \(limit) allows; use fewer")
        }
        let server = serverPID.map { ServerProcess(pid: $0) } ?? ServerProcess.listening(onPort: target.port, host: target.host)
        let group: EventLoopGroup
        do { group = try EventLoopGroup(loopCount: threads) } catch { throw .failed("event loop: \(error)") }
        defer { group.shutdown() }

        let before = server?.sample()
        let plan = PeerPlan(target: target, path: path, deflate: deflate,
                            sources: BenchTarget.sourceAddresses(count: sources))
        let progress = FleetProgress()
        let fleet = Fleet(group: group, total: connections, progress: progress) { loop, count, first in
            IdleShard(loop: loop, plan: plan, progress: progress, count: count, firstGlobalIndex: first)
        }
        let started = ContinuousClock.now
        fleet.begin()
        let settled = fleet.waitUntilSettled(timeout: .seconds(30 + connections / 200))
        let openTime = ContinuousClock.now - started
        let sampler = server.map { MemorySampler(server: $0) }
        if hold > 0, progress.opened.load(ordering: .relaxed) > 0 { usleep(useconds_t(hold * 1_000_000)) }
        let peak = sampler?.stop()
        let after = server?.sample()

        var echoed: Int?
        if path.hasPrefix("/ws/echo") {
            let probe = "tombola-bench probe"
            _ = fleet.collect { $0.probeAll(with: probe); return 0 }
            let open = fleet.collect { $0.openCount }.reduce(0, +)
            _ = fleet.waitFor(timeout: .seconds(10)) { fleet.collect { $0.echoes }.reduce(0, +) >= open }
            echoed = fleet.collect { $0.echoes }.reduce(0, +)
        }
        let held = fleet.collect { $0.openCount }.reduce(0, +)
        let failures = fleet.collect { $0.failureReasons }.reduce(into: [String: Int]()) { $0.merge($1, uniquingKeysWith: +) }
        let drops = fleet.collect { $0.dropReasons }.reduce(into: [String: Int]()) { $0.merge($1, uniquingKeysWith: +) }
        let opened = progress.opened.load(ordering: .relaxed)
        let failed = progress.failed.load(ordering: .relaxed)
        let dropped = progress.dropped.load(ordering: .relaxed)
        fleet.closeAll()

        var report = Report(command: "connect")
        report.row("target", "\(target.url)\(path)", key: "url", .string(target.url + path))
        report.row("connections asked", String(connections), key: "connections", .int(connections))
        report.row("opened", "\(opened) in \(Format.seconds(openTime.seconds))\(settled ? "" : " (timed out)")",
                   key: "opened", .int(opened))
        report.field("openSeconds", .double(openTime.seconds))
        report.row("failed to open", String(failed) + failures.summaryText, key: "failed", .int(failed))
        report.row("held after \(Format.seconds(hold))", String(held), key: "held", .int(held))
        report.row("dropped while held", String(dropped) + drops.summaryText, key: "dropped", .int(dropped))
        if let echoed { report.row("echo probe answered", "\(echoed) of \(held)", key: "echoed", .int(echoed)) }
        if let server, let before, let after {
            let perConnection = Double(after.rssKiB - before.rssKiB) * 1024 / Double(max(1, opened))
            report.row("server pid", String(server.pid), key: "serverPid", .int(Int(server.pid)))
            report.row("server RSS before", Format.mib(before.rssKiB), key: "rssBeforeKiB", .int(before.rssKiB))
            report.row("server RSS held", Format.mib(after.rssKiB), key: "rssHeldKiB", .int(after.rssKiB))
            report.row("server RSS peak (sampled)", Format.mib(peak), key: "rssPeakKiB", peak.map { .int($0) } ?? .null)
            report.row("memory per connection", String(format: "%.0f bytes (%.2f KiB)", perConnection, perConnection / 1024),
                       key: "bytesPerConnection", .double(perConnection.rounded()))
            report.row("server CPU while opening+holding", Format.seconds(after.cpuSeconds - before.cpuSeconds),
                       key: "serverCpuSeconds", .double(after.cpuSeconds - before.cpuSeconds))
        } else {
            report.row("server", "pid not found (pass --server-pid); no memory figures", key: "serverPid", .null)
        }
        return report
    }
}

extension Duration {
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}

extension Dictionary where Key == String, Value == Int {
    /// " (reason ×count, …)" or "".
    var summaryText: String {
        isEmpty ? "" : " (" + sorted { $0.value > $1.value }.prefix(4).map { "\($0.key) ×\($0.value)" }.joined(separator: ", ") + ")"
    }

    var jsonObject: ReportJSON { .object(sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) }) }
}
