import Foundation
import Glibc
import Posix
import Synchronization

/// `startup`: time from spawning the server to its first answered `GET /healthz`, and its RSS
/// then. With `--touch N` each run then asks for draws `PREFIX-0001`…`PREFIX-N` (as `tombola
/// generate-history` names them; each read back on first use) and reports the time that took
/// and the RSS after. Lay down history first, e.g.
/// `tombola generate-history --data DIR --draws 1000 --rounds 100`. With `--idle-wait S` it then
/// waits S seconds with no request and reports the RSS again (a server with
/// `--unload-idle-after` shorter than S has unloaded the draws by then).
struct StartupCommand {
    static let usage = """
        tombola-bench startup --binary PATH --data DIR [--port P] [--runs 5] [--extra "ARGS"] [--touch N] [--prefix GEN]
                               [--idle-wait SECONDS]
        """

    var binary: String
    var data: String
    var port: Int
    var runs: Int
    var extra: [String]
    var touch: Int
    var prefix: String
    var idleWait: Double

    struct Run {
        var healthzMs: Double
        var rssKiB: Int
        var touchMs: Double?
        var touchedRssKiB: Int?
        var idleRssKiB: Int?
    }

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments)
        binary = try args.required("binary", hint: "the tombola executable, e.g. .build/release/tombola")
        data = try args.required("data", hint: "a data directory; the first (uncounted) run creates its database")
        port = try args.int("port", default: 18090, range: 1...65535)
        runs = try args.int("runs", default: 5, range: 1...100)
        extra = args.string("extra", default: "").split(separator: " ").map(String.init)
        touch = try args.int("touch", default: 0, range: 0...100_000)
        prefix = args.string("prefix", default: "GEN")
        idleWait = try args.double("idle-wait", default: 0, range: 0...3600)
        try args.finish()
        guard access(binary, X_OK) == 0 else { throw .usage("\(binary) is not an executable") }
    }

    func run() throws(BenchError) -> Report {
        guard Subprocess.httpStatus(host: "127.0.0.1", port: port, path: "/healthz", timeout: .milliseconds(300)) == nil else {
            throw .usage("port \(port) is already in use; pick another with --port")
        }
        let arguments = ["--host", "127.0.0.1", "--port", String(port), "--data", data] + extra
        let warmUp = try measureOnce(arguments).healthzMs
        var measured: [Run] = []
        for _ in 0..<runs { measured.append(try measureOnce(arguments)) }
        let times = measured.map(\.healthzMs)
        let median = Self.median(times)

        var report = Report(command: "startup")
        report.row("command", ([binary] + arguments).joined(separator: " "), key: "binary", .string(binary))
        report.row("warm-up run (not counted)", String(format: "%.1f ms", warmUp), key: "warmUpMs", .double(warmUp))
        report.row("runs", times.map { String(format: "%.1f", $0) }.joined(separator: ", ") + " ms",
                   key: "runsMs", .array(times.map { .double(($0 * 10).rounded() / 10) }))
        report.row("median to first /healthz", String(format: "%.1f ms", median), key: "medianMs", .double((median * 10).rounded() / 10))
        let rss = Self.median(measured.map { Double($0.rssKiB) })
        report.row("RSS at first /healthz (median)", String(format: "%.1f MiB", rss / 1024), key: "rssKiB", .int(Int(rss)))
        if touch > 0 {
            let touchMs = Self.median(measured.compactMap(\.touchMs))
            let touched = Self.median(measured.compactMap { $0.touchedRssKiB.map(Double.init) })
            report.row("draws touched (GET /api/draws/\(prefix)-…)", "\(touch)", key: "touched", .int(touch))
            report.row("time to touch them (median)", String(format: "%.1f ms", touchMs), key: "touchMs", .double((touchMs * 10).rounded() / 10))
            report.row("RSS after touching (median)", String(format: "%.1f MiB", touched / 1024), key: "touchedRssKiB", .int(Int(touched)))
            if idleWait > 0 {
                let idle = Self.median(measured.compactMap { $0.idleRssKiB.map(Double.init) })
                report.row("RSS after \(Format.seconds(idleWait)) without a request (median)", String(format: "%.1f MiB", idle / 1024),
                           key: "idleRssKiB", .int(Int(idle)))
                report.field("idleWaitSeconds", .double(idleWait))
            }
        }
        return report
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    private static func rssKiB(of pid: Int32) -> Int {
        ProcFile.read("/proc/\(pid)/status").flatMap { ProcFile.kibField("VmRSS", in: $0) } ?? 0
    }

    /// GETs each draw's state once (16 at a time), so each is read back; fails on anything but 200.
    private func touchDraws() throws(BenchError) -> Double {
        let started = ContinuousClock.now
        let next = Mutex(1)
        let failed = Mutex<String?>(nil)
        let (port, prefix, touch) = (port, prefix, touch)
        let threads = (0..<16).map { _ in
            Foundation.Thread {
                while true {
                    let number = next.withLock { value -> Int in defer { value += 1 }; return value }
                    guard number <= touch else { return }
                    let digits = String(number)
                    let code = prefix + "-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
                    let status = Subprocess.httpStatus(host: "127.0.0.1", port: port, path: "/api/draws/\(code)", timeout: .seconds(30))
                    if status != 200 { failed.withLock { $0 = "GET /api/draws/\(code) answered \(status.map(String.init) ?? "nothing")" } }
                }
            }
        }
        for thread in threads { thread.start() }
        while threads.contains(where: { !$0.isFinished }) { usleep(1_000) }
        if let message = failed.withLock({ $0 }) { throw .failed(message) }
        return (ContinuousClock.now - started).seconds * 1000
    }

    /// Milliseconds from spawn to the first 200 on /healthz and the RSS then (and after touching
    /// draws, with `--touch`); the server is stopped afterwards.
    private func measureOnce(_ arguments: [String]) throws(BenchError) -> Run {
        let started = ContinuousClock.now
        let process = try Subprocess.start(binary, arguments)
        defer { Subprocess.stop(process) }
        let deadline = started + .seconds(15)
        while ContinuousClock.now < deadline {
            if Subprocess.httpStatus(host: "127.0.0.1", port: port, path: "/healthz", timeout: .milliseconds(500)) == 200 {
                var run = Run(healthzMs: (ContinuousClock.now - started).seconds * 1000, rssKiB: Self.rssKiB(of: process.processIdentifier))
                if touch > 0 {
                    run.touchMs = try touchDraws()
                    run.touchedRssKiB = Self.rssKiB(of: process.processIdentifier)
                    if idleWait > 0 {
                        usleep(useconds_t(idleWait * 1_000_000))
                        run.idleRssKiB = Self.rssKiB(of: process.processIdentifier)
                    }
                }
                return run
            }
            guard process.isRunning else { throw .failed("\(binary) exited with status \(process.terminationStatus) before serving /healthz") }
            usleep(1_000)
        }
        throw .failed("\(binary) did not answer /healthz on port \(port) within 15 s")
    }
}
