import Dispatch
import Synchronization
import Foundation
import Glibc
import Posix
import WebSocketClient

/// `storm`: N viewers of a draw with a big list pool, rolling, all lose their connection at once
/// and come back within a window (a venue's Wi-Fi blip). Measures the time from each viewer's
/// moment of wanting back in to a correct `state`, the server's memory and CPU through it, the
/// calculator's key round trip meanwhile, and whether those back keep getting every tick.
struct StormCommand {
    static let usage = """
        tombola-bench storm --viewers N --code CODE --host-key KEY [--pool 100000] [--name-bytes 8]
                            [--window-ms 1000] [--url http://127.0.0.1:8080] [--threads T] [--server-pid PID]
                            [--calc-clients 1] [--per-stop 1000] [--slow-down-ms 1500] [--idle] [--deflate]
                            [--max-pending 4096] [--beacon]
            (configures the draw with a list of --pool names, rolls it, drops and reconnects every viewer,
             then stops: the time for the --per-stop winners to reach every viewer; --beacon seals the
             rounds with drand (the server's --beacon-relay …): the lock, the wait for round R and its
             fetch, read from the draw's records, are reported too)
        """

    var options: ViewerOptions
    var hostKey: String
    var pool: Int
    var nameBytes: Int
    var window: Duration
    var serverPID: Int32?
    var calcClients: Int
    var perStop: Int
    /// The server's slow-down (its default), against which the reveal is judged.
    var slowDownMs: Int
    /// Storm while the draw is idle (no ticks), to tell the cost of joins from that of the fan-out.
    var idle: Bool
    /// Handshakes in flight per generator loop. Phones have no such limit, and a low one measures
    /// the generator's queue instead of the server (at 128 on one loop the rolling storm's p99 was
    /// 9.0 s, at 512 on two loops 3.7 s, same server, same load); the server's accept queue holds
    /// 4,096 per listener.
    var maxPending: Int
    /// The draw's rounds are beacon-sealed (docs/FAIRNESS.md §13).
    var beacon: Bool

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments, switches: ["deflate", "idle", "beacon"])
        options = try ViewerOptions(&args, viewersName: "viewers")
        idle = args.flag("idle")
        beacon = args.flag("beacon")
        hostKey = try args.required("host-key", hint: "the draw's host key, e.g. the server's --host-key")
        pool = try args.int("pool", default: 100_000, range: 0...100_000)
        nameBytes = try args.int("name-bytes", default: 8, range: 8...200)
        window = .milliseconds(try args.int("window-ms", default: 1000, range: 0...60_000))
        serverPID = try args.optionalInt("server-pid", range: 1...Int(Int32.max)).map { Int32($0) }
        calcClients = try args.int("calc-clients", default: 1, range: 0...100)
        perStop = try args.int("per-stop", default: 1000, range: 1...100_000)
        slowDownMs = try args.int("slow-down-ms", default: 1500, range: 0...60_000)
        maxPending = try args.int("max-pending", default: 4096, range: 1...100_000)
        try args.finish()
    }

    /// `count` distinct names of exactly `bytes` bytes (a number padded with letters), as the
    /// text form of a list pool, escaped for a JSON string.
    static func poolText(count: Int, bytes: Int) -> String {
        var text = ""
        text.reserveCapacity(count * (bytes + 2))
        let filler = String(repeating: "x", count: max(0, bytes - 8))
        for i in 0..<count {
            if i > 0 { text += "\\n" }
            let number = String(i)
            text += "N" + String(repeating: "0", count: 7 - number.count) + number + filler
        }
        return text
    }

    func run() throws(BenchError) -> Report {
        _ = SystemLimits.raiseDescriptorLimit()
        let server = serverPID.map { ServerProcess(pid: $0) } ?? ServerProcess.listening(onPort: options.target.port, host: options.target.host)
        let host = try HostConnection(options: options, key: hostKey)
        defer { host.close() }
        var seq = Int(WallClock.unixMilliseconds())
        if let phase = host.view.phase, phase == "rolling" || phase == "stopping" {
            host.send(#"{"type":"stop","seq":\#(seq)}"#)
            seq += 1
            _ = host.wait(timeout: .seconds(15)) { $0.phase == "revealed" || $0.phase == "idle" }
        }
        // 1. The pool: a list of `pool` names (one configure message; it must fit the 1 MiB message limit).
        if pool > 0 {
            let acks = host.view.acks.count
            host.send(#"{"type":"configure","seq":\#(seq),"config":{"pool":{"kind":"list","text":""# + Self.poolText(count: pool, bytes: nameBytes)
                      + #""},"repeats":true,"perStop":\#(perStop)\#(beacon ? #","beacon":true"# : "")}}"#)
            seq += 1
            guard host.wait(timeout: .seconds(60), { $0.acks.count > acks || !$0.errors.isEmpty }), host.view.errors.isEmpty else {
                throw .failed("configure with \(pool) names failed: \(host.view.errors.last ?? host.view.closeReason ?? "no ack within 60 s")")
            }
        }

        // 2. The steady audience connects and gets its snapshots.
        let group: EventLoopGroup
        do { group = try EventLoopGroup(loopCount: options.threads) } catch { throw .failed("event loop: \(error)") }
        defer { group.shutdown() }
        var plan = PeerPlan(target: options.target, path: options.path, deflate: options.deflate,
                            sources: BenchTarget.sourceAddresses(count: options.sources))
        plan.maxPendingPerLoop = maxPending
        let progress = StormProgress()
        var shards: [LoopBound<StormShard>] = []
        var first = 0
        for (i, loop) in group.loops.enumerated() {
            let count = options.viewers / group.loops.count + (i < options.viewers % group.loops.count ? 1 : 0)
            shards.append(LoopBound(StormShard(loop: loop, plan: plan, progress: progress, count: count, firstGlobalIndex: first), loop: loop))
            first += count
        }
        let fleet = StormFleet(shards: shards)
        // The loops stop while the fleet still lives: a close-grace timer that fires late (a loaded
        // machine) must not reach a peer whose shard (its `unowned` delegate) was already freed.
        defer {
            fleet.closeAll()
            group.shutdown()
        }
        let openStarted = ContinuousClock.now
        fleet.run { $0.begin(expecting: nil) }
        let settled = fleet.waitFor(timeout: options.settleTimeout) {
            progress.correct.load(ordering: .relaxed) + progress.failed.load(ordering: .relaxed) + progress.wrong.load(ordering: .relaxed) >= options.viewers
        }
        let openSeconds = (ContinuousClock.now - openStarted).seconds
        let joinHistogram = fleet.collect { $0.histogram }.reduce(into: LatencyHistogram()) { $0.merge($1) }
        let joined = progress.correct.load(ordering: .relaxed)
        guard joined > 0 else { throw .failed("no viewer got a state from \(options.target.url)\(options.path)") }
        let learned = fleet.collect { $0.learned }.compactMap { $0 }.first

        // 3. Roll, let it settle, take the steady figures.
        if !idle {
            host.send(#"{"type":"start","seq":\#(seq)}"#)
            seq += 1
            _ = host.wait(timeout: .seconds(10)) { $0.phase == "rolling" }
        }
        sleep(2)
        let steady = server?.sample()
        let steadySampler = server.map { MemorySampler(server: $0, interval: .milliseconds(100)) }
        sleep(1)
        let steadyPeak = steadySampler?.stop()

        // 4. The storm: everybody drops and comes back within the window.
        let expected = ExpectedState(phase: idle ? (learned?.phase ?? "idle") : "rolling", settingsHash: learned?.settingsHash, commitment: learned?.commitment)
        progress.correct.store(0, ordering: .relaxed)
        progress.failed.store(0, ordering: .relaxed)
        progress.wrong.store(0, ordering: .relaxed)
        fleet.run { $0.expect(expected) }
        let typists = try calcClients > 0 ? Typists(options: options, clients: calcClients, intervalMilliseconds: 100) : nil
        usleep(300_000)
        let sampler = server.map { MemorySampler(server: $0, interval: .milliseconds(50)) }
        let before = server?.sample()
        let ownCPUBefore = SystemLimits.ownCPUSeconds
        let stormStarted = ContinuousClock.now
        let stormWall = WallClock.unixMilliseconds()
        let windowCopy = window
        fleet.run { $0.storm(window: windowCopy, countTicksAfter: stormWall) }
        let back = fleet.waitFor(timeout: .seconds(60)) {
            progress.correct.load(ordering: .relaxed) + progress.failed.load(ordering: .relaxed) + progress.wrong.load(ordering: .relaxed) >= joined
        }
        let stormSeconds = (ContinuousClock.now - stormStarted).seconds
        let during = server?.sample()
        let ownCPU = SystemLimits.ownCPUSeconds - ownCPUBefore
        // Those back keep rolling for a few seconds: do they get every tick?
        sleep(3)
        let keyHistogram = typists?.stop()
        let peak = sampler?.stop()
        let after = server?.sample()
        let histogram = fleet.collect { $0.histogram }.reduce(into: LatencyHistogram()) { $0.merge($1) }
        let ticks = fleet.collect { $0.tickTotals() }.reduce((0, 0)) { ($0.0 + $1.received, $0.1 + $1.expected) }
        let stateBytes = fleet.collect { $0.stateBytes }.max() ?? 0
        let wrongSamples = fleet.collect { $0.wrongSamples }.flatMap { $0 }
        let failures = fleet.collect { $0.failures }.reduce(into: [String: Int]()) { $0.merge($1, uniquingKeysWith: +) }
        // 5. The Stop: how long until its winners reach every viewer (rolled briefly when idle so far).
        if idle {
            host.send(#"{"type":"start","seq":\#(seq)}"#)
            seq += 1
            _ = host.wait(timeout: .seconds(10)) { $0.phase == "rolling" }
            sleep(1)
        }
        let stopWall = WallClock.unixMilliseconds()
        fleet.run { $0.awaitResult(since: stopWall) }
        host.send(#"{"type":"stop","seq":\#(seq)}"#)
        let everyone = progress.correct.load(ordering: .relaxed)
        _ = fleet.waitFor(timeout: .seconds(30)) { fleet.collect { $0.resultsSeen }.reduce(0, +) >= everyone }
        let reveal = fleet.collect { $0.resultLatencies }.reduce(into: LatencyHistogram()) { $0.merge($1) }
        let resultBytes = fleet.collect { $0.resultBytes }.max() ?? 0
        _ = host.wait(timeout: .seconds(15)) { $0.phase == "revealed" }
        let sealing = beacon ? BeaconTimeline.read(code: options.code, target: options.target, stopWall: Int64(stopWall)) : nil
        if beacon, sealing == nil { throw .failed("the sealed round's records (beacon, beaconValue) were not found in the export") }

        var report = Report(command: "storm")
        report.row("target", options.target.url + options.path, key: "url", .string(options.target.url + options.path))
        report.row("pool", "\(pool) names of \(nameBytes) bytes; storm while \(idle ? "idle" : "rolling")", key: "pool", .int(pool))
        report.field("idle", .bool(idle))
        report.field("deflate", .bool(options.deflate))
        report.row("viewers", "\(joined) of \(options.viewers) joined in \(Format.seconds(openSeconds))\(settled ? "" : " (not all settled)"), join p50 / p99 "
                   + "\(Format.ms(joinHistogram.percentile(50))) / \(Format.ms(joinHistogram.percentile(99)))", key: "viewers", .int(options.viewers))
        report.field("joined", .int(joined))
        report.field("joinP99Ms", Format.msValue(joinHistogram.percentile(99)))
        report.row("state size", "\(stateBytes) bytes (uncompressed payload, largest seen)", key: "stateBytes", .int(stateBytes))
        report.row("storm", "all dropped at once, back within \(window.components.seconds * 1000 + window.components.attoseconds / 1_000_000_000_000_000) ms; "
                   + "\(progress.correct.load(ordering: .relaxed)) correct states in \(Format.seconds(stormSeconds))\(back ? "" : " (timed out)")",
                   key: "windowMs", .int(Int(window.components.seconds * 1000 + window.components.attoseconds / 1_000_000_000_000_000)))
        report.field("correct", .int(progress.correct.load(ordering: .relaxed)))
        report.field("stormSeconds", .double(stormSeconds))
        report.row("wrong states / failed", "\(progress.wrong.load(ordering: .relaxed)) / \(progress.failed.load(ordering: .relaxed))"
                   + (wrongSamples.isEmpty ? "" : " e.g. \(wrongSamples[0])") + failures.summaryText,
                   key: "wrong", .int(progress.wrong.load(ordering: .relaxed)))
        report.field("failed", .int(progress.failed.load(ordering: .relaxed)))
        for (label, key, p) in [("time to correct state p50", "p50Ms", 50.0), ("… p90", "p90Ms", 90), ("… p99", "p99Ms", 99)] {
            report.row(label, Format.ms(histogram.percentile(p)), key: key, Format.msValue(histogram.percentile(p)))
        }
        report.row("… max", Format.ms(histogram.count > 0 ? histogram.max : nil), key: "maxMs", Format.msValue(histogram.count > 0 ? histogram.max : nil))
        // The distribution, for the plot: every 2nd percentile.
        report.field("cdfMs", .array(stride(from: 2.0, through: 100, by: 2).map { Format.msValue(histogram.percentile($0)) }))
        let tickRatio = ticks.1 > 0 ? Double(ticks.0) / Double(ticks.1) : 0
        report.row("ticks after return", "\(ticks.0) of \(ticks.1) (\(Format.percent(tickRatio)))", key: "ticksAfterReturn", .int(ticks.0))
        report.field("ticksAfterReturnRatio", .double((tickRatio * 1e6).rounded() / 1e6))
        report.row("stop → result at every viewer", "\(reveal.count) of \(everyone), \(perStop) winners, \(resultBytes) bytes; p50 / p99 / max "
                   + [50.0, 99].map { Format.ms(reveal.percentile($0)) }.joined(separator: " / ") + " / " + Format.ms(reveal.count > 0 ? reveal.max : nil)
                   + " (slow-down \(slowDownMs) ms + 200 ms target)", key: "revealP99Ms", Format.msValue(reveal.percentile(99)))
        report.field("revealMaxMs", Format.msValue(reveal.count > 0 ? reveal.max : nil))
        report.field("beacon", .bool(beacon))
        if let sealing {
            report.row("… of which drand", "lock stored \(sealing.lockMs) ms after Stop; round \(sealing.beaconRound) due \(sealing.dueMs) ms "
                       + "after Stop; its value stored \(sealing.valueMs) ms after Stop (fetched \(sealing.valueMs - sealing.dueMs) ms after due); "
                       + "from the value to every viewer p99 \(Format.ms(reveal.percentile(99).map { $0 - min($0, UInt64(max(0, sealing.valueMs)) * 1000) }))",
                       key: "beaconLockMs", .int(Int(sealing.lockMs)))
            report.field("beaconDueMs", .int(Int(sealing.dueMs)))
            report.field("beaconValueMs", .int(Int(sealing.valueMs)))
        }
        report.field("revealed", .int(Int(reveal.count)))
        report.field("perStop", .int(perStop))
        report.field("resultBytes", .int(resultBytes))
        if let keyHistogram {
            report.row("key round trip p50 / p99 / max", [50.0, 99].map { Format.ms(keyHistogram.percentile($0)) }.joined(separator: " / ")
                       + " / " + Format.ms(keyHistogram.count > 0 ? keyHistogram.max : nil) + " (\(keyHistogram.count) keys)",
                       key: "calcP99Ms", Format.msValue(keyHistogram.percentile(99)))
            report.field("calcP50Ms", Format.msValue(keyHistogram.percentile(50)))
        }
        // The generator shares the machine: what it took in the storm is CPU the server could not have.
        report.row("generator CPU in the storm", String(format: "%.2f s = %.2f cores (%d loops, %d handshakes in flight per loop)",
                                                        ownCPU, ownCPU / max(0.001, stormSeconds), options.threads, maxPending),
                   key: "generatorCpuSeconds", .double(ownCPU))
        report.field("threads", .int(options.threads))
        report.field("maxPending", .int(maxPending))
        if let steady, let before, let during, let after {
            let cpu = during.cpuSeconds - before.cpuSeconds
            report.row("server CPU in the storm", String(format: "%.2f s over %.2f s = %.2f cores", cpu, stormSeconds, cpu / max(0.001, stormSeconds)),
                       key: "stormCpuSeconds", .double(cpu))
            let steadyKiB = max(steady.rssKiB, steadyPeak ?? 0)
            report.row("server RSS steady → storm peak", "\(Format.mib(steadyKiB)) → \(Format.mib(peak)) (× "
                       + String(format: "%.2f", Double(peak ?? 0) / Double(max(1, steadyKiB))) + "), VmHWM \(Format.mib(after.peakKiB))",
                       key: "steadyRssKiB", .int(steadyKiB))
            report.field("peakRssKiB", peak.map { .int($0) } ?? .null)
            report.field("peakOverSteady", .double(((Double(peak ?? 0) / Double(max(1, steadyKiB))) * 1000).rounded() / 1000))
            report.field("serverRunqueueWaitSeconds", .double(after.runqueueWaitSeconds - before.runqueueWaitSeconds))
        } else {
            report.row("server", "pid not found (pass --server-pid); no CPU/memory figures", key: "serverPid", .null)
        }
        return report
    }
}

/// The storm's shards, driven from the main thread.
final class StormFleet: Sendable {
    let shards: [LoopBound<StormShard>]

    init(shards: [LoopBound<StormShard>]) {
        self.shards = shards
    }

    func run(_ body: @escaping @Sendable (StormShard) -> Void) {
        _ = collect { body($0); return 0 }
    }

    func collect<R: Sendable>(_ body: @escaping @Sendable (StormShard) -> R) -> [R] {
        collectOnLoops(shards, body)
    }

    func waitFor(timeout: Duration, _ condition: () -> Bool) -> Bool {
        pollUntil(timeout: timeout, condition)
    }

    func closeAll() {
        run { $0.closeAll() }
        _ = waitFor(timeout: .seconds(3)) { collect { $0.openCount }.reduce(0, +) == 0 }
    }
}

/// A sealed round's timeline from the draw's export, in ms after the Stop was sent: when the
/// `beacon` lock was stored, when drand round R was due, when its `beaconValue` was stored.
struct BeaconTimeline {
    var beaconRound: Int
    var lockMs: Int64
    var dueMs: Int64
    var valueMs: Int64

    static func read(code: String, target: BenchTarget, stopWall: Int64) -> BeaconTimeline? {
        guard let response = BenchHTTP.request("GET", "/api/draws/\(code)/export.json", target: target, timeout: .seconds(60)),
              response.status == 200,
              let export = try? JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any],
              let records = export["records"] as? [[String: Any]],
              let lock = records.last(where: { $0["kind"] as? String == "beacon" }),
              let value = records.last(where: { $0["kind"] as? String == "beaconValue" }),
              let round = lock["beaconRound"] as? Int, let chain = lock["chain"] as? [String: Any],
              let genesis = chain["genesis"] as? Int, let period = chain["period"] as? Int,
              let lockAt = lock["at"] as? Int, let valueAt = value["at"] as? Int else { return nil }
        let due = Int64(genesis + (round - 1) * period) * 1000
        return BeaconTimeline(beaconRound: round, lockMs: Int64(lockAt) - stopWall, dueMs: due - stopWall, valueMs: Int64(valueAt) - stopWall)
    }
}
