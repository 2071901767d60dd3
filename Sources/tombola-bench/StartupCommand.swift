import Foundation
import Glibc
import Posix

/// `startup`: time from spawning the server to its first answered `GET /healthz`.
struct StartupCommand {
    static let usage = """
        tombola-bench startup --binary PATH --data DIR [--port P] [--runs 5] [--extra "ARGS"]
        """

    var binary: String
    var data: String
    var port: Int
    var runs: Int
    var extra: [String]

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments)
        binary = try args.required("binary", hint: "the tombola executable, e.g. .build/release/tombola")
        data = try args.required("data", hint: "a data directory; the first (uncounted) run creates its database")
        port = try args.int("port", default: 18090, range: 1...65535)
        runs = try args.int("runs", default: 5, range: 1...100)
        extra = args.string("extra", default: "").split(separator: " ").map(String.init)
        try args.finish()
        guard access(binary, X_OK) == 0 else { throw .usage("\(binary) is not an executable") }
    }

    func run() throws(BenchError) -> Report {
        guard Subprocess.httpStatus(host: "127.0.0.1", port: port, path: "/healthz", timeout: .milliseconds(300)) == nil else {
            throw .usage("port \(port) is already in use; pick another with --port")
        }
        let arguments = ["--host", "127.0.0.1", "--port", String(port), "--data", data] + extra
        let warmUp = try measureOnce(arguments)
        var times: [Double] = []
        for _ in 0..<runs { times.append(try measureOnce(arguments)) }
        let sorted = times.sorted()
        let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2

        var report = Report(command: "startup")
        report.row("command", ([binary] + arguments).joined(separator: " "), key: "binary", .string(binary))
        report.row("warm-up run (not counted)", String(format: "%.1f ms", warmUp), key: "warmUpMs", .double(warmUp))
        report.row("runs", times.map { String(format: "%.1f", $0) }.joined(separator: ", ") + " ms",
                   key: "runsMs", .array(times.map { .double(($0 * 10).rounded() / 10) }))
        report.row("median to first /healthz", String(format: "%.1f ms", median), key: "medianMs", .double((median * 10).rounded() / 10))
        return report
    }

    /// Milliseconds from spawn to the first 200 on /healthz; the server is stopped afterwards.
    private func measureOnce(_ arguments: [String]) throws(BenchError) -> Double {
        let started = ContinuousClock.now
        let process = try Subprocess.start(binary, arguments)
        defer { Subprocess.stop(process) }
        let deadline = started + .seconds(15)
        while ContinuousClock.now < deadline {
            if Subprocess.httpStatus(host: "127.0.0.1", port: port, path: "/healthz", timeout: .milliseconds(500)) == 200 {
                return (ContinuousClock.now - started).seconds * 1000
            }
            guard process.isRunning else { throw .failed("\(binary) exited with status \(process.terminationStatus) before serving /healthz") }
            usleep(1_000)
        }
        throw .failed("\(binary) did not answer /healthz on port \(port) within 15 s")
    }
}
