import Foundation
import Glibc
import Posix
import WebSocketClient

/// `fanout`: N viewers watch a draw room while the host rolls it for S seconds.
struct FanoutCommand {
    static let usage = """
        tombola-bench fanout --viewers N --hz H --seconds S --code CODE --host-key KEY
                             [--url http://127.0.0.1:8080] [--processes P] [--threads T] [--sources K]
                             [--server-pid PID] [--deflate] [--calc-clients C [--calc-interval-ms 100]] [--ready-file PATH]
                             [--spread URL,URL,… [--cluster-pids PID,PID,…] [--redis-pid PID]]
            (start the server with --tick-hz H; H here is the rate the run is checked against)
            --spread: cluster mode (docs/CLUSTER.md): the viewers are split evenly over these
            instances (one or more worker processes each), the host stays on --url; the
            instances' CPU (--cluster-pids) and Redis's (--redis-pid) are reported
            --ready-file: made when the viewers are connected, right before Start (so that a profiler
            started on it measures the rolling part only: bench/fanout-cost.sh)
        """

    var options: ViewerOptions
    var hz: Double
    var seconds: Double
    var hostKey: String
    var processes: Int?
    var serverPID: Int32?
    /// Calculator sessions typing during the rolling part (key round trips under load).
    var calcClients: Int
    var calcInterval: Int
    /// Cluster mode: the instances the viewers are spread over.
    var spread: [BenchTarget]
    var clusterPIDs: [Int32]
    var redisPID: Int32?
    /// Made right before Start, once every viewer is connected (`bench/fanout-cost.sh` waits for it).
    var readyFile: String?

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments, switches: ["deflate"])
        options = try ViewerOptions(&args, viewersName: "viewers")
        hz = try args.double("hz", default: 20, range: 0.1...1000)
        seconds = try args.double("seconds", default: 10, range: 0.5...3600)
        hostKey = try args.required("host-key", hint: "the draw's host key, e.g. the server's --host-key")
        processes = try args.optionalInt("processes", range: 1...64)
        serverPID = try args.optionalInt("server-pid", range: 1...Int(Int32.max)).map { Int32($0) }
        calcClients = try args.int("calc-clients", default: 0, range: 0...1000)
        calcInterval = try args.int("calc-interval-ms", default: 100, range: 0...60_000)
        spread = []
        for url in (args.string("spread") ?? "").split(separator: ",") { spread.append(try BenchTarget(url: String(url))) }
        clusterPIDs = []
        for pid in (args.string("cluster-pids") ?? "").split(separator: ",") {
            guard let value = Int32(pid), value > 0 else { throw .usage("--cluster-pids takes process ids, not '\(pid)'") }
            clusterPIDs.append(value)
        }
        redisPID = try args.optionalInt("redis-pid", range: 1...Int(Int32.max)).map { Int32($0) }
        readyFile = args.string("ready-file")
        try args.finish()
    }

    func run() throws(BenchError) -> Report {
        let limit = SystemLimits.raiseDescriptorLimit()
        let perProcess = max(100, limit - 256)
        var processCount = max(processes ?? 1, (options.viewers + perProcess - 1) / perProcess)
        if !spread.isEmpty {
            processCount = (max(processCount, spread.count) + spread.count - 1) / spread.count * spread.count
        }
        let others = clusterPIDs.map { ServerProcess(pid: $0) } + (redisPID.map { [ServerProcess(pid: $0)] } ?? [])
        let server = serverPID.map { ServerProcess(pid: $0) } ?? ServerProcess.listening(onPort: options.target.port, host: options.target.host)

        // 1. The host connects first (a server at its connection cap would refuse it last) and
        //    authenticates.
        let host = try HostConnection(options: options, key: hostKey)
        defer { host.close() }

        // 2. Viewers connect (here, or in worker processes past the descriptor limit).
        let viewers: ViewerSide = processCount == 1 && spread.isEmpty ? try InProcessViewers(options: options)
            : try WorkerViewers(options: options, processes: processCount, targets: spread)
        let openStarted = ContinuousClock.now
        let (opened, failed) = viewers.waitReady()
        let openSeconds = (ContinuousClock.now - openStarted).seconds
        defer { viewers.close() }
        guard opened > 0 else {
            let totals = viewers.finish(first: nil, last: nil)
            throw .failed("no viewer connected to \(options.target.url)\(options.path) (\(failed) failed\(totals.failureReasons.summaryText))")
        }

        // 3. Make sure nothing is rolling yet.
        var seq = Int(WallClock.unixMilliseconds())
        if let phase = host.view.phase, phase == "rolling" || phase == "stopping" {
            host.send(#"{"type":"stop","seq":\#(seq)}"#)
            seq += 1
            _ = host.wait(timeout: .seconds(15)) { $0.phase == "revealed" || $0.phase == "idle" }
            usleep(300_000)
        }
        let ticksBefore = host.view.lastTick
        let parentCPUAtStart = SystemLimits.ownCPUSeconds

        // 4. Roll for S seconds, then stop and wait for the reveal.
        let before = server?.sample()
        let othersBefore = others.map { $0.sample() }
        let sampler = server.map { MemorySampler(server: $0) }
        if let readyFile { _ = FileManager.default.createFile(atPath: readyFile, contents: Data()) }
        let runStarted = ContinuousClock.now
        host.send(#"{"type":"start","seq":\#(seq)}"#)
        let typists = try calcClients > 0 ? Typists(options: options, clients: calcClients, intervalMilliseconds: calcInterval) : nil
        usleep(useconds_t(seconds * 1_000_000))
        let keyHistogram = typists?.stop()
        host.send(#"{"type":"stop","seq":\#(seq + 1)}"#)
        let revealed = host.wait(timeout: .seconds(15)) { $0.phase == "revealed" }
        usleep(300_000)
        let runSeconds = (ContinuousClock.now - runStarted).seconds
        let peak = sampler?.stop()
        let after = server?.sample()
        let othersAfter = others.map { $0.sample() }
        let view = host.view
        let parentCPU = processCount > 1 ? SystemLimits.ownCPUSeconds - parentCPUAtStart : 0

        // 5. Totals against the tick range the host saw in this run.
        let first = view.firstTick.map { first in ticksBefore.map { max(first, $0 + 1) } ?? first }
        var totals = viewers.finish(first: first, last: view.lastTick)
        totals.opened = opened

        var report = Report(command: "fanout")
        report.row("target", options.target.url + options.path, key: "url", .string(options.target.url + options.path))
        report.row("viewers", "\(opened) open of \(options.viewers) (\(failed) failed) in \(Format.seconds(openSeconds)), \(processCount) process(es) × \(options.threads) thread(s)",
                   key: "viewers", .int(options.viewers))
        report.field("opened", .int(opened))
        report.field("failed", .int(failed))
        report.field("openSeconds", .double(openSeconds))
        report.field("processes", .int(processCount))
        report.field("threads", .int(options.threads))
        let hostView = view
        report.row("permessage-deflate", options.deflate ? "offered; host's connection: \(hostView.deflate ?? "refused"), \(hostView.compressedMessages) compressed message(s) to the host"
                   : "not offered", key: "deflate", .bool(options.deflate))
        report.field("deflateNegotiated", .bool(hostView.deflate != nil))
        report.field("hostCompressedMessages", .int(hostView.compressedMessages))
        if !totals.failureReasons.isEmpty { report.row("connect failures", totals.failureReasons.summaryText, key: "failureReasons", totals.failureReasons.jsonObject) }
        report.row("run", "\(Format.seconds(seconds)) rolling at target \(hz) Hz\(revealed ? "" : " (no reveal seen)")",
                   key: "seconds", .double(seconds))
        report.field("hz", .double(hz))
        report.field("revealed", .bool(revealed))

        let low = [first, totals.minSeq].compactMap { $0 }.min()
        let high = [view.lastTick, totals.maxSeq].compactMap { $0 }.max()
        let sent = low.flatMap { low in high.map { $0 - low + 1 } } ?? 0
        // The server's rolling rate, from the seq and `at` of the first tick and of the last one
        // before `stopping` (the slow-down spaces ticks out). Seqs, not counts: a starved host
        // may itself have skipped ticks.
        let rollingSeqs = view.firstTick.flatMap { a in (view.rollingLastTick ?? view.lastTick).map { $0 - a } } ?? 0
        let rollingSpan = view.firstTickAt.flatMap { a in (view.rollingLastTickAt ?? view.lastTickAt).map { ($0 - a) / 1000 } } ?? 0
        let sentHz = rollingSpan > 0 && rollingSeqs > 0 ? Double(rollingSeqs) / rollingSpan : 0
        let rollingTicks = view.firstTick == nil ? 0 : rollingSeqs + 1
        report.row("ticks sent", String(format: "%d, of which %d rolling at %.2f Hz (target %.0f Hz × %.0f s = %.0f)", sent, rollingTicks,
                                        sentHz, hz, seconds, hz * seconds),
                   key: "ticksSent", .int(sent))
        report.field("rollingTicks", .int(rollingTicks))
        report.field("sentHz", .double((sentHz * 100).rounded() / 100))
        let expected = sent * opened
        let ratio = expected > 0 ? Double(totals.ticks) / Double(expected) : 0
        report.row("ticks delivered", "\(totals.ticks) of \(expected) (\(Format.percent(ratio)))", key: "ticksDelivered", .int(totals.ticks))
        report.field("deliveredRatio", .double((ratio * 1e6).rounded() / 1e6))
        report.row("missing ticks", "\(totals.missing) over \(totals.viewersWithGaps) viewer(s), worst viewer \(totals.worstViewerMissing)",
                   key: "missingTicks", .int(totals.missing))
        report.field("viewersWithGaps", .int(totals.viewersWithGaps))
        report.field("worstViewerMissing", .int(totals.worstViewerMissing))
        report.row("out of order", String(totals.outOfOrder), key: "outOfOrder", .int(totals.outOfOrder))
        report.row("disconnects", String(totals.dropped) + totals.dropReasons.summaryText, key: "disconnects", .int(totals.dropped))
        let histogram = totals.histogram
        for (label, key, p) in [("latency p50", "p50Ms", 50.0), ("latency p90", "p90Ms", 90), ("latency p99", "p99Ms", 99),
                                ("latency p99.9", "p999Ms", 99.9)] {
            report.row(label, Format.ms(histogram.percentile(p)), key: key, Format.msValue(histogram.percentile(p)))
        }
        let maxLatency = histogram.count > 0 ? histogram.max : nil
        report.row("latency max", Format.ms(maxLatency), key: "maxMs", Format.msValue(maxLatency))
        if totals.negativeLatencies > 0 { report.row("ticks from the future", String(totals.negativeLatencies), key: "negativeLatencies", .int(totals.negativeLatencies)) }
        let errors = totals.errors.merging(Dictionary(view.errors.map { ($0, 1) }, uniquingKeysWith: +), uniquingKeysWith: +)
        report.row("error messages", String(errors.values.reduce(0, +)) + errors.summaryText, key: "errors", errors.jsonObject)
        if let keyHistogram {
            report.row("key round trips while rolling", "\(keyHistogram.count) from \(calcClients) session(s), one key per \(calcInterval) ms each",
                       key: "calcRoundTrips", .int(Int(keyHistogram.count)))
            report.row("key round trip p50 / p99 / max", [50.0, 99].map { Format.ms(keyHistogram.percentile($0)) }.joined(separator: " / ")
                       + " / " + Format.ms(keyHistogram.count > 0 ? keyHistogram.max : nil),
                       key: "calcP50Ms", Format.msValue(keyHistogram.percentile(50)))
            report.field("calcP99Ms", Format.msValue(keyHistogram.percentile(99)))
            report.field("calcMaxMs", Format.msValue(keyHistogram.count > 0 ? keyHistogram.max : nil))
        }
        let generatorCPU = totals.generatorCPUSeconds + parentCPU
        report.row("generator CPU", String(format: "%.2f s = %.2f cores; its threads waited %.2f s for a CPU", generatorCPU,
                                           generatorCPU / runSeconds, totals.generatorRunqueueWaitSeconds),
                   key: "generatorCpuSeconds", .double(generatorCPU))
        report.field("generatorRunqueueWaitSeconds", .double(totals.generatorRunqueueWaitSeconds))
        if let server, let before, let after {
            let cpu = after.cpuSeconds - before.cpuSeconds
            report.row("server pid", String(server.pid), key: "serverPid", .int(Int(server.pid)))
            report.row("server CPU", String(format: "%.2f s over %.1f s = %.2f cores", cpu, runSeconds, cpu / runSeconds),
                       key: "serverCpuSeconds", .double(cpu))
            report.field("serverCores", .double((cpu / runSeconds * 1000).rounded() / 1000))
            let waited = after.runqueueWaitSeconds - before.runqueueWaitSeconds
            report.row("server threads waiting for a CPU", String(format: "%.2f s in total (machine contention when large)", waited),
                       key: "serverRunqueueWaitSeconds", .double(waited))
            report.row("server RSS peak", "\(Format.mib(peak)) sampled, \(Format.mib(after.peakKiB)) VmHWM",
                       key: "rssPeakKiB", peak.map { .int($0) } ?? .null)
            report.field("vmHWMKiB", .int(after.peakKiB))
        } else {
            report.row("server", "pid not found (pass --server-pid); no CPU/memory figures", key: "serverPid", .null)
        }
        if !spread.isEmpty {
            report.row("spread over", spread.map(\.url).joined(separator: ", "), key: "spread", .array(spread.map { .string($0.url) }))
        }
        func cpu(_ range: Range<Int>) -> Double? {
            var total = 0.0
            for i in range {
                guard let a = othersBefore[i], let b = othersAfter[i] else { return nil }
                total += b.cpuSeconds - a.cpuSeconds
            }
            return total
        }
        if !clusterPIDs.isEmpty, let seconds = cpu(0..<clusterPIDs.count) {
            report.row("cluster instances CPU", String(format: "%.2f s over %.1f s = %.2f cores (%d instances)", seconds, runSeconds,
                                                       seconds / runSeconds, clusterPIDs.count),
                       key: "clusterCores", .double((seconds / runSeconds * 1000).rounded() / 1000))
        }
        if redisPID != nil, let seconds = cpu(clusterPIDs.count..<others.count) {
            report.row("redis CPU", String(format: "%.2f s over %.1f s = %.3f cores", seconds, runSeconds, seconds / runSeconds),
                       key: "redisCores", .double((seconds / runSeconds * 10000).rounded() / 10000))
        }
        return report
    }
}
