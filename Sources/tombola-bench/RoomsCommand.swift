import Foundation
import Glibc
import Posix
import WebSocketClient

/// `rooms`: many small draws rolling at once against one big draw, in the same run. Creates
/// `--rooms` draws (admin key), puts `--viewers-per-room` viewers on each and rolls them all
/// for S seconds; then puts the same number of viewers on one draw and rolls it alone. Both
/// send the same frames per second; the figures are the tick rate each viewer received and the
/// server's CPU, and their ratio.
struct RoomsCommand {
    static let usage = """
        tombola-bench rooms --admin-key KEY [--rooms 1000] [--viewers-per-room 10] [--hz 20] [--seconds 20]
                            [--url http://127.0.0.1:8080] [--threads T] [--server-pid PID]
            (start the server with --tick-hz H and --max-connections above rooms × viewers)
        """

    var target: BenchTarget
    var adminKey: String
    var rooms: Int
    var perRoom: Int
    var hz: Double
    var seconds: Double
    var threads: Int
    var serverPID: Int32?

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments)
        target = try BenchTarget(url: args.string("url", default: "http://127.0.0.1:8080"))
        adminKey = try args.required("admin-key", hint: "the server's --admin-key (creates the draws)")
        rooms = try args.int("rooms", default: 1000, range: 1...10_000)
        perRoom = try args.int("viewers-per-room", default: 10, range: 1...10_000)
        hz = try args.double("hz", default: 20, range: 0.1...1000)
        seconds = try args.double("seconds", default: 20, range: 1...3600)
        threads = try args.int("threads", default: 1, range: 1...64)
        serverPID = try args.optionalInt("server-pid", range: 1...Int(Int32.max)).map { Int32($0) }
        try args.finish()
    }

    struct Phase {
        var label: String
        var rooms: Int
        var viewers: Int
        var opened: Int
        var ticks: Int
        var window: Double
        var cpu: Double?
        var latencies: LatencyHistogram
        var startSeconds: Double
        /// Seconds the server's threads waited for a CPU in the window (machine contention).
        var runqueueWait: Double?

        /// Ticks per second each viewer received.
        var rate: Double { opened > 0 && window > 0 ? Double(ticks) / Double(opened) / window : 0 }
        var cores: Double? { cpu.map { $0 / window } }
    }

    func run() throws(BenchError) -> Report {
        _ = SystemLimits.raiseDescriptorLimit()
        let server = serverPID.map { ServerProcess(pid: $0) } ?? ServerProcess.listening(onPort: target.port, host: target.host)
        // 1. The draws.
        var draws: [(code: String, key: String)] = []
        for _ in 0..<rooms {
            guard let created = BenchHTTP.request("POST", "/api/draws", target: target, key: adminKey, body: "{}"), created.status == 201,
                  let code = Self.field("code", in: created.body), let key = Self.field("hostKey", in: created.body) else {
                throw .failed("creating a draw failed (is --admin-key the server's?)")
            }
            draws.append((code, key))
        }
        // 2. Many rooms, then one room with as many viewers, in this order.
        let many = try phase("\(rooms) rooms × \(perRoom) viewers", draws: draws, viewers: rooms * perRoom, server: server)
        let one = try phase("1 room × \(rooms * perRoom) viewers", draws: [draws[0]], viewers: rooms * perRoom, server: server)

        var report = Report(command: "rooms")
        report.row("target", target.url, key: "url", .string(target.url))
        report.field("rooms", .int(rooms))
        report.field("viewersPerRoom", .int(perRoom))
        report.field("hz", .double(hz))
        report.field("seconds", .double(seconds))
        for (phase, key) in [(many, "many"), (one, "one")] {
            report.row(phase.label, String(format: "%d of %d open; started in %.1f s; %.2f Hz per viewer (target %.0f), ", phase.opened, phase.viewers,
                                           phase.startSeconds, phase.rate, hz)
                       + "latency p50 / p99 \(Format.ms(phase.latencies.percentile(50))) / \(Format.ms(phase.latencies.percentile(99))), "
                       + (phase.cores.map { String(format: "server %.3f cores", $0) } ?? "server CPU unknown"),
                       key: key + "Hz", .double((phase.rate * 100).rounded() / 100))
            report.field(key + "Opened", .int(phase.opened))
            report.field(key + "Cores", phase.cores.map { .double(($0 * 1000).rounded() / 1000) } ?? .null)
            report.field(key + "P50Ms", Format.msValue(phase.latencies.percentile(50)))
            report.field(key + "P99Ms", Format.msValue(phase.latencies.percentile(99)))
            report.field(key + "RunqueueWaitSeconds", phase.runqueueWait.map { .double(($0 * 100).rounded() / 100) } ?? .null)
        }
        if let a = many.cores, let b = one.cores, b > 0 {
            report.row("server CPU, many rooms ÷ one room", String(format: "%.2f× (target ≤ 1.2×)", a / b), key: "cpuRatio", .double((a / b * 1000).rounded() / 1000))
        }
        return report
    }

    private func phase(_ label: String, draws: [(code: String, key: String)], viewers: Int, server: ServerProcess?) throws(BenchError) -> Phase {
        let group: EventLoopGroup
        do { group = try EventLoopGroup(loopCount: threads) } catch { throw .failed("event loop: \(error)") }
        defer { group.shutdown() }
        var plan = PeerPlan(target: target, path: "/ws/draw/\(draws[0].code)", sources: BenchTarget.sourceAddresses(count: 16))
        plan.paths = draws.map { "/ws/draw/\($0.code)" }
        let progress = FleetProgress()
        let fleet = Fleet<ViewerShard>(group: group, total: viewers, progress: progress) { loop, count, first in
            ViewerShard(loop: loop, plan: plan, progress: progress, count: count, firstGlobalIndex: first)
        }
        fleet.begin()
        _ = fleet.waitUntilSettled(timeout: .seconds(30 + viewers / 200))
        defer { fleet.closeAll() }
        let opened = progress.opened.load(ordering: .relaxed)
        let startBegan = ContinuousClock.now
        // All Starts in flight at once, then read: the rooms begin rolling within moments of each other.
        let starts = draws.compactMap { BenchHTTP.send("POST", "/api/draws/\($0.code)/start", target: target, key: $0.key, body: "{}") }
        for start in starts { _ = start.response() }
        let startSeconds = (ContinuousClock.now - startBegan).seconds
        sleep(2)
        let ticksBefore = fleet.collect { $0.tickCount }.reduce(0, +)
        let before = server?.sample()
        let windowStart = ContinuousClock.now
        usleep(useconds_t(seconds * 1_000_000))
        let ticksAfter = fleet.collect { $0.tickCount }.reduce(0, +)
        let after = server?.sample()
        let window = (ContinuousClock.now - windowStart).seconds
        let latencies = fleet.collect { $0.latencies }.reduce(into: LatencyHistogram()) { $0.merge($1) }
        let waited = before.flatMap { b in after.map { $0.runqueueWaitSeconds - b.runqueueWaitSeconds } }
        // Every Stop is answered after its reveal: all in flight at once, then read.
        let stops = draws.compactMap { BenchHTTP.send("POST", "/api/draws/\($0.code)/stop", target: target, key: $0.key, body: "{}") }
        for stop in stops { _ = stop.response() }
        return Phase(label: label, rooms: draws.count, viewers: viewers, opened: opened, ticks: ticksAfter - ticksBefore, window: window,
                     cpu: before.flatMap { b in after.map { $0.cpuSeconds - b.cpuSeconds } }, latencies: latencies, startSeconds: startSeconds,
                     runqueueWait: waited)
    }

    /// The string value of `"name":"…"` in a small JSON text (codes and keys have no escapes).
    static func field(_ name: String, in text: String) -> String? {
        guard let range = text.range(of: "\"\(name)\":\"") else { return nil }
        let rest = text[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}
