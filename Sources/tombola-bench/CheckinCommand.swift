import Foundation
import Glibc
import Posix
import WebSocketClient

/// `checkin`: N phones check in (REST `join`, each a new device) to a check-in draw while V
/// viewers watch another draw of the same server roll at H Hz (a draw takes entries only while
/// it is not rolling; every room shares the draw loop and the storage thread, which is what
/// check-ins could slow down). The same fan-out is measured first without check-in, in the same
/// run, so a noisy shared machine compares like with like. Then every entry must be stored once.
struct CheckinCommand {
    static let usage = """
        tombola-bench checkin --entrants N --viewers V --code CODE --host-key KEY --admin-key KEY
                              [--url http://127.0.0.1:8080] [--hz 20] [--seconds 70] [--join-seconds 55]
                              [--joiners 16] [--server-pid PID] [--processes P] [--threads T]
            (CODE rolls for the viewers; a new check-in draw made with the admin key takes the entries;
             fan-out runs twice: without, then with check-ins)
        """

    var entrants: Int
    var viewers: Int
    var code: String
    var hostKey: String
    var adminKey: String
    var url: String
    var hz: Double
    var seconds: Double
    var joinSeconds: Double
    var joiners: Int
    var fanoutExtra: [String]
    var target: BenchTarget

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments, switches: [])
        entrants = try args.int("entrants", default: 5000, range: 1...100_000)
        viewers = try args.int("viewers", default: 5000, range: 1...1_000_000)
        code = try args.required("code", hint: "the draw's code")
        hostKey = try args.required("host-key", hint: "the draw's host key")
        adminKey = try args.required("admin-key", hint: "the server's admin key (it makes the check-in draw)")
        url = args.string("url", default: "http://127.0.0.1:8080")
        hz = try args.double("hz", default: 20, range: 0.1...1000)
        seconds = try args.double("seconds", default: 70, range: 2...3600)
        joinSeconds = try args.double("join-seconds", default: 55, range: 0.1...3600)
        joiners = try args.int("joiners", default: 16, range: 1...256)
        fanoutExtra = []
        for name in ["server-pid", "processes", "threads"] {
            if let value = args.string(name) { fanoutExtra += ["--\(name)", value] }
        }
        try args.finish()
        target = try BenchTarget(url: url)
        guard joinSeconds < seconds else { throw .usage("--join-seconds must be shorter than --seconds (joins happen while rolling)") }
    }

    /// One request on a fresh connection: the status and the body.
    func request(_ method: String, _ path: String, body: String? = nil, key: String? = nil) -> (Int, [UInt8])? {
        guard let socket = try? BlockingSocket(host: target.host, port: target.port, timeout: .seconds(30)) else { return nil }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nConnection: close\r\n"
        if let key { head += "Authorization: Bearer \(key)\r\n" }
        let bytes = Array((body ?? "").utf8)
        if body != nil { head += "Content-Type: application/json\r\nContent-Length: \(bytes.count)\r\n" }
        guard (try? socket.send(Array((head + "\r\n").utf8) + bytes)) != nil,
              let answer = try? socket.receiveUntilClosed() else { return nil }
        let line = String(decoding: answer.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self).split(separator: " ")
        guard line.count >= 2, let status = Int(line[1]) else { return nil }
        var split = 0
        for index in answer.indices.dropLast(3) where answer[index] == 13 && answer[index + 1] == 10 && answer[index + 2] == 13 && answer[index + 3] == 10 {
            split = index + 4
            break
        }
        return (status, Array(answer[split...]))
    }

    func json(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    func fanout() throws(BenchError) -> (Report, [String: Any]) {
        let report = try FanoutCommand(["--viewers", String(viewers), "--hz", String(hz), "--seconds", String(seconds),
                                        "--code", code, "--host-key", hostKey, "--url", url] + fanoutExtra).run()
        return (report, (try? JSONSerialization.jsonObject(with: Data(report.jsonLine.utf8))) as? [String: Any] ?? [:])
    }

    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    }

    func run() throws(BenchError) -> Report {
        guard let created = request("POST", "/api/draws", body: #"{"config":{"pool":{"kind":"checkin"}}}"#, key: adminKey),
              created.0 == 201, let checkinCode = json(created.1)["code"] as? String,
              let checkinKey = json(created.1)["hostKey"] as? String else { throw .failed("could not create a check-in draw (admin key?)") }
        let drawPath = "/api/draws/\(checkinCode)"
        let rolling = "/api/draws/\(code)"
        let loadBefore = Self.loadAverage()

        // 1. The fan-out alone.
        let (baseline, baselineJSON) = try fanout()
        baseline.print()

        // 2. The same fan-out while N phones check in, spread over join-seconds once rolling.
        guard let opened = request("POST", drawPath + "/entries/open", body: "{}", key: checkinKey), opened.0 == 200 else {
            throw .failed("could not open entries")
        }
        let results = Guarded(JoinResults())
        let next = Guarded(0)
        let joinThreads = (0..<joiners).map { _ in
            Foundation.Thread { [self] in
                // Wait for the roll (the fan-out connects its viewers first).
                let deadline = Date().addingTimeInterval(600)
                while Date() < deadline {
                    if let state = request("GET", rolling), (json(state.1)["phase"] as? String) == "rolling" { break }
                    usleep(100_000)
                }
                let start = Date()
                results.withLock { if $0.started == nil { $0.started = start.timeIntervalSince1970 } }
                _ = start
                while true {
                    let index = next.withLock { value -> Int in value += 1; return value }
                    guard index <= entrants else { break }
                    // Paced: entry i is due at i/N of join-seconds after the roll began.
                    let due = Double(index - 1) / Double(entrants) * joinSeconds
                    let wait = due - Date().timeIntervalSince(start)
                    if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
                    let sent = ContinuousClock.now
                    let answer = request("POST", drawPath + "/join", body: #"{"name":"Bench phone \#(index)"}"#)
                    let micros = UInt64((ContinuousClock.now - sent).seconds * 1_000_000)
                    let key = answer.map { $0.0 == 201 ? "201" : "\($0.0) \((json($0.1)["error"] as? [String: Any])?["code"] as? String ?? "")" } ?? "no answer"
                    results.withLock {
                        $0.histogram.record(micros)
                        $0.statuses[key, default: 0] += 1
                        $0.finished = Date().timeIntervalSince1970
                    }
                }
            }
        }
        for thread in joinThreads { thread.start() }
        let (loaded, loadedJSON) = try fanout()
        loaded.print()
        while next.withLock({ $0 }) <= entrants + joiners - 1 && results.withLock({ $0.statuses.values.reduce(0, +) }) < entrants {
            usleep(100_000)
        }
        let loadAfter = Self.loadAverage()

        // 3. Close entries: the pool must hold every check-in exactly once.
        let closed = request("POST", drawPath + "/entries/close", body: "{}", key: checkinKey)
        let closedCount = closed.flatMap { json($0.1)["entrants"] as? Int }
        let listed = request("GET", drawPath + "/entrants?limit=1&removed=1", key: checkinKey).flatMap { json($0.1)["total"] as? Int }
        let pool = request("GET", drawPath + "/entries/pool").map { json($0.1) }
        let poolIDs = (pool?["entrants"] as? [String]) ?? []
        let done = results.withLock { $0 }
        let accepted = done.statuses["201"] ?? 0

        var report = Report(command: "checkin")
        report.row("load average", "\(loadBefore) before, \(loadAfter) after", key: "loadAverage", .string("\(loadBefore) / \(loadAfter)"))
        report.row("viewers", "\(viewers) on \(code) at \(hz) Hz, \(Format.seconds(seconds)) rolling per run; check-ins to \(checkinCode)",
                   key: "viewers", .int(viewers))
        let span = (done.finished ?? 0) - (done.started ?? 0)
        report.row("check-ins", "\(accepted) accepted of \(entrants) in \(Format.seconds(span)) (\(String(format: "%.0f", Double(accepted) / max(span, 0.001)))/s, \(joiners) clients)",
                   key: "accepted", .int(accepted))
        report.field("joinSeconds", .double(span))
        let refused = done.statuses.filter { $0.key != "201" }
        report.row("refused", refused.isEmpty ? "none" : refused.map { "\($0.value) × \($0.key)" }.sorted().joined(separator: ", "),
                   key: "refused", .int(refused.values.reduce(0, +)))
        report.row("join latency p50 / p99 / max", [50.0, 99].map { Format.ms(done.histogram.percentile($0)) }.joined(separator: " / ")
                   + " / " + Format.ms(done.histogram.count > 0 ? done.histogram.max : nil),
                   key: "joinP99Ms", Format.msValue(done.histogram.percentile(99)))
        let once = closedCount == accepted && listed == accepted && poolIDs.count == accepted && Set(poolIDs).count == poolIDs.count
        report.row("stored", "closed with \(closedCount.map(String.init) ?? "?"), listed \(listed.map(String.init) ?? "?"), pool \(poolIDs.count) ids (\(Set(poolIDs).count) distinct): \(once ? "every entry once" : "MISMATCH")",
                   key: "storedOnce", .bool(once))
        let p99Base = baselineJSON["p99Ms"] as? Double
        let p99Load = loadedJSON["p99Ms"] as? Double
        report.row("fan-out p99", "\(p99Base.map { String(format: "%.2f ms", $0) } ?? "–") without, \(p99Load.map { String(format: "%.2f ms", $0) } ?? "–") with check-in",
                   key: "p99BaselineMs", p99Base.map { .double($0) } ?? .null)
        report.field("p99CheckinMs", p99Load.map { .double($0) } ?? .null)
        if let p99Base, let p99Load, p99Base > 0 {
            let ratio = p99Load / p99Base
            report.row("p99 ratio", String(format: "%.2f× (target ≤ 1.2×)", ratio), key: "p99Ratio", .double((ratio * 100).rounded() / 100))
        }
        for (label, json) in [("delivered without", baselineJSON), ("delivered with", loadedJSON)] {
            report.row(label, "\(json["ticksDelivered"] ?? "?") ticks, ratio \(json["deliveredRatio"] ?? "?")")
        }
        return report
    }
}

/// What the joining threads found.
private struct JoinResults {
    var histogram = LatencyHistogram()
    var statuses: [String: Int] = [:]
    var started: Double?
    var finished: Double?
}

/// A value behind an NSLock. `@unchecked Sendable`: every access holds `lock`.
private final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
