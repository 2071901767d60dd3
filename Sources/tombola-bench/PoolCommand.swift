import DrawEngine
import Foundation
import Glibc
import Posix

/// `pool`: 100,000-entrant pools over REST against a fresh server (issue #15, #18 item 3): the
/// same list as JSON (`PUT /api/draws/<code>/config`), as CSV text (`PUT …/pool`) and as an
/// import preview (`POST …/import`). Each request's wall time is measured by the client from
/// the first byte sent to the last byte of the answer; the server's CPU time (user + system,
/// from /proc) over the same request is reported beside it, since the machine is shared.
/// Then the list's lifecycle (issue #27): a Start that stores a new 100,000-name list and its
/// lock (the entry tree's root computed, one durable write), the Stop, two entrants' entry
/// proofs (the round's first, then one from the kept tree); and the tree's root alone, here.
struct PoolCommand {
    static let usage = """
        tombola-bench pool --binary PATH --data DIR [--port P] [--rows 100000] [--runs 5] [--private]
        """

    var binary: String
    var data: String
    var port: Int
    var rows: Int
    var runs: Int
    /// Every list is a private draw's (issue #42): its names become salted public ids at configure.
    var isPrivate: Bool

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments, switches: ["private"])
        binary = try args.required("binary", hint: "the tombola executable, e.g. .build/release/tombola")
        data = try args.required("data", hint: "an empty data directory for the server started here")
        port = try args.int("port", default: 18091, range: 1...65535)
        rows = try args.int("rows", default: 100_000, range: 2...100_000)
        runs = try args.int("runs", default: 5, range: 1...50)
        isPrivate = args.flag("private")
        try args.finish()
        guard access(binary, X_OK) == 0 else { throw .usage("\(binary) is not an executable") }
    }

    static let hostKey = "BENCHHOSTKEYBENCHHOSTKEY12"
    static let code = "BENCH2"

    /// Realistic names: two parts from common first and last names (Latin, accented, Chinese),
    /// a distinguishing number; about 15 characters on average. Deterministic.
    static func names(_ count: Int) -> [String] {
        let first = ["Ann", "Bob", "Zoë", "Maria", "José", "Wei", "李雷", "韩梅梅", "Olu", "Priya", "Sven", "Aiko", "Noah", "Fatima"]
        let last = ["Smith", "Müller", "Wang", "García", "O'Neil", "Kowalski", "Nguyen", "王", "Okafor", "Larsen", "Sato"]
        var generator = SplitMix64(seed: 1)
        return (0..<count).map { i in
            "\(first[Int(generator.next() % UInt64(first.count))]) \(last[Int(generator.next() % UInt64(last.count))]) \(i)"
        }
    }

    func run() throws(BenchError) -> Report {
        guard Subprocess.httpStatus(host: "127.0.0.1", port: port, path: "/healthz", timeout: .milliseconds(300)) == nil else {
            throw .usage("port \(port) is already in use; pick another with --port")
        }
        let names = Self.names(rows)
        let json = "{\"pool\":{\"kind\":\"list\",\"entrants\":[" + names.map(Self.quote).joined(separator: ",") + "]}\(privacy)}"
        var csv = "Employee ID,Name,Tickets,Department\r\n"
        let groups = ["Sales", "IT", "研发", "Board", ""]
        for (i, name) in names.enumerated() {
            csv += "E\(String(format: "%06d", i)),\(name),\([1, 1, 1, 2, 3][i % 5]),\(groups[i % groups.count])\r\n"
        }
        let process = try Subprocess.start(binary, ["--host", "127.0.0.1", "--port", String(port), "--data", data,
                                                    "--default-draw", Self.code, "--host-key", Self.hostKey])
        defer { Subprocess.stop(process) }
        guard Subprocess.waitForPort(port, timeout: .seconds(15)) else { throw .failed("the server did not start on port \(port)") }
        let server = ServerProcess(pid: process.processIdentifier)
        let base = "/api/draws/\(Self.code)"
        let cases: [(label: String, key: String, method: String, path: String, type: String, body: [UInt8])] = [
            ("JSON list, PUT config", "configJson", "PUT", base + "/config", "application/json", Array(json.utf8)),
            ("CSV text, PUT pool", "poolCsv", "PUT", base + "/pool", "text/csv; charset=utf-8", Array(csv.utf8)),
            ("CSV import preview, POST import", "importCsv", "POST", base + "/import", "text/csv; charset=utf-8", Array(csv.utf8)),
        ]
        var report = Report(command: "pool")
        report.row("rows", String(rows), key: "rows", .int(rows))
        report.row("load average (1, 5, 15 min) before", Self.loadAverage, key: "loadAverage", .string(Self.loadAverage))
        for item in cases {
            var walls: [Double] = [], cpus: [Double] = []
            var last = 0
            var answerBytes = 0
            // Alternate with a one-name list so each PUT really replaces the pool (and its hash).
            for _ in 0..<(runs + 1) {
                if item.method == "PUT" {
                    _ = try request("PUT", base + "/config", "application/json", Array("{\"pool\":{\"kind\":\"range\",\"from\":1,\"to\":500}\(privacy)}".utf8))
                }
                let before = server.sample()?.cpuSeconds ?? 0
                let started = ContinuousClock.now
                let (status, bytes) = try request(item.method, item.path, item.type, item.body)
                let wall = (ContinuousClock.now - started).seconds
                let cpu = (server.sample()?.cpuSeconds ?? 0) - before
                guard status == 200 else { throw .failed("\(item.method) \(item.path) answered \(status)") }
                last = status
                answerBytes = bytes
                walls.append(wall * 1000)
                cpus.append(cpu * 1000)
            }
            walls.removeFirst()  // warm-up
            cpus.removeFirst()
            let wallMedian = Self.median(walls), cpuMedian = Self.median(cpus)
            report.row("", "\(item.label): \(item.body.count) bytes in, \(answerBytes) bytes out, status \(last)")
            report.row("  wall per request (median, runs)", String(format: "%.0f ms  (%@)", wallMedian,
                                                                     walls.map { String(format: "%.0f", $0) }.joined(separator: ", ")),
                       key: item.key + "WallMs", .double(wallMedian.rounded()))
            report.row("  server CPU per request (median)", String(format: "%.0f ms  (%@)", cpuMedian,
                                                                   cpus.map { String(format: "%.0f", $0) }.joined(separator: ", ")),
                       key: item.key + "CpuMs", .double(cpuMedian.rounded()))
            report.field(item.key + "Bytes", .int(item.body.count))
        }
        try lifecycle(names, base: base, server: server, into: &report)
        report.row("load average (1, 5, 15 min) after", Self.loadAverage, key: "loadAverageAfter", .string(Self.loadAverage))
        return report
    }

    /// Per run: a new list (its last name names the run, so its hash and tree are new), Start
    /// (the `entrants` record, the lock with the tree's root, stored before the answer), Stop, and
    /// the proof of the run's own entry; then the root alone in this process.
    private func lifecycle(_ names: [String], base: String, server: ServerProcess, into report: inout Report) throws(BenchError) {
        var walls = [String: [Double]](), cpus = [String: [Double]]()
        for run in 0...runs {
            let mine = "Run \(run)"
            let list = "{\"pool\":{\"kind\":\"list\",\"entrants\":[" + (names.dropLast() + [mine]).map(Self.quote).joined(separator: ",") + "]}\(privacy)}"
            let configured = ContinuousClock.now
            let cpuBefore = server.sample()?.cpuSeconds ?? 0
            guard try request("PUT", base + "/config", "application/json", Array(list.utf8)).0 == 200 else { throw .failed("PUT config answered no 200") }
            if run > 0 {
                walls["configure", default: []].append((ContinuousClock.now - configured).seconds * 1000)
                cpus["configure", default: []].append(((server.sample()?.cpuSeconds ?? 0) - cpuBefore) * 1000)
            }
            // The round's first proof builds its tree; the next, another entrant's, is served kept.
            // A private list's entries are proved by public id: read from the host's roster (not timed).
            var entry = mine, other = names[(run * 7_919) % (names.count - 1)]
            if isPrivate {
                let roster = try body("GET", base + "/private")
                entry = Self.publicID(of: mine, in: roster)
                other = Self.publicID(of: other, in: roster)
            }
            let escaped = other.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let steps: [(key: String, method: String, path: String)] = [
                ("start", "POST", base + "/start"), ("stop", "POST", base + "/stop"),
                ("proof", "GET", base + "/rounds/\(run + 1)/proof?entry=" + (entry.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")),
                ("proofKept", "GET", base + "/rounds/\(run + 1)/proof?entry=" + escaped),
            ]
            for step in steps {
                let before = server.sample()?.cpuSeconds ?? 0
                let started = ContinuousClock.now
                let (status, _) = try request(step.method, step.path, "application/json", step.method == "POST" ? Array("{}".utf8) : [])
                let wall = (ContinuousClock.now - started).seconds
                guard status == 200 else { throw .failed("\(step.method) \(step.path) answered \(status)") }
                guard run > 0 else { continue }  // warm-up
                walls[step.key, default: []].append(wall * 1000)
                cpus[step.key, default: []].append(((server.sample()?.cpuSeconds ?? 0) - before) * 1000)
            }
        }
        for (key, label) in [("configure", isPrivate ? "PUT config of a new private list (its public ids made)" : "PUT config of a new list"),
                             ("start", "Start with a new list (stored with its lock and tree root)"), ("stop", "Stop (answered after the 1.5 s slow-down)"),
                             ("proof", "GET …/rounds/<n>/proof?entry= (the round's first: builds its tree)"),
                             ("proofKept", "… another entrant's proof of that round (its tree kept)")] {
            let wall = Self.median(walls[key] ?? []), cpu = Self.median(cpus[key] ?? [])
            report.row(label, String(format: "wall %.0f ms, server CPU %.0f ms (medians of %d)", wall, cpu, walls[key]?.count ?? 0),
                       key: key + "WallMs", .double(wall.rounded()))
            report.field(key + "CpuMs", .double(cpu.rounded()))
        }
        var roots = [Double]()
        for _ in 0...runs {
            let started = ContinuousClock.now
            _ = EntryTree.root(names: names, tickets: nil, groups: nil)
            roots.append((ContinuousClock.now - started).seconds * 1000)
        }
        roots.removeFirst()
        report.row("entry tree root of \(names.count) names, in this process", String(format: "%.1f ms (median of %d)", Self.median(roots), roots.count),
                   key: "entryRootMs", .double((Self.median(roots) * 10).rounded() / 10))
    }

    /// `,"private":true` when the lists are a private draw's.
    var privacy: String { isPrivate ? ",\"private\":true" : "" }

    /// The public id of `name` in a roster (`GET …/private`, canonical JSON: `"id"` just before `"name"`).
    static func publicID(of name: String, in roster: String) -> String {
        guard let at = roster.range(of: ",\"name\":" + quote(name) + ",") else { return name }
        let before = roster[..<at.lowerBound]
        guard let start = before.range(of: "\"id\":\"", options: .backwards) else { return name }
        return String(before[start.upperBound...].dropLast())
    }

    /// One request's answer body (after the head), as text.
    private func body(_ method: String, _ path: String) throws(BenchError) -> String {
        do {
            let socket = try BlockingSocket(host: "127.0.0.1", port: port, timeout: .seconds(60))
            defer { socket.close() }
            let head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(Self.hostKey)\r\nConnection: close\r\n\r\n"
            try socket.send(Array(head.utf8))
            let answer = String(decoding: try socket.receiveUntilClosed(), as: UTF8.self)
            guard let split = answer.range(of: "\r\n\r\n") else { throw BenchError.failed("no HTTP answer to \(method) \(path)") }
            return String(answer[split.upperBound...])
        } catch let error as BenchError {
            throw error
        } catch {
            throw .failed("\(method) \(path): \(error)")
        }
    }

    /// One request on a fresh connection; the status and the answer's size.
    private func request(_ method: String, _ path: String, _ type: String, _ body: [UInt8]) throws(BenchError) -> (Int, Int) {
        do {
            let socket = try BlockingSocket(host: "127.0.0.1", port: port, timeout: .seconds(60))
            defer { socket.close() }
            let head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(Self.hostKey)\r\n"
                + "Content-Type: \(type)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            try socket.send(Array(head.utf8) + body)
            let answer = try socket.receiveUntilClosed()
            let line = String(decoding: answer.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
            guard line.count >= 2, let status = Int(line[1]) else { throw BenchError.failed("no HTTP answer to \(method) \(path)") }
            return (status, answer.count)
        } catch let error as BenchError {
            throw error
        } catch {
            throw .failed("\(method) \(path): \(error)")
        }
    }

    static var loadAverage: String {
        (ProcFile.read("/proc/loadavg") ?? "").split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// A small deterministic generator for the bench's data (not for anything secret).
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
