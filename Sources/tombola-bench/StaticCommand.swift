import Foundation
import Glibc

/// `static`: how our server compares with nginx on one small file under `wrk`.
struct StaticCommand {
    static let usage = """
        tombola-bench static [--url http://127.0.0.1:8080] [--path /] [--public DIR] [--nginx-port P]
                             [--duration SECONDS] [--connections C] [--wrk-threads T] [--nginx-workers W] [--guide-only]
        """

    var target: BenchTarget
    var path: String
    var publicDirectory: String
    var nginxPort: Int
    var duration: Int
    var connections: Int
    var wrkThreads: Int
    var nginxWorkers: Int
    var guideOnly: Bool

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments, switches: ["guide-only"])
        target = try BenchTarget(url: args.string("url", default: "http://127.0.0.1:8080"))
        path = args.string("path", default: "/")
        guard path.hasPrefix("/"), !path.contains(" ") else { throw .usage("--path must start with /") }
        publicDirectory = args.string("public", default: "Public")
        nginxPort = try args.int("nginx-port", default: 18081, range: 1...65535)
        duration = try args.int("duration", default: 10, range: 1...600)
        connections = try args.int("connections", default: 100, range: 1...10_000)
        wrkThreads = try args.int("wrk-threads", default: 2, range: 1...64)
        nginxWorkers = try args.int("nginx-workers", default: SystemLimits.coreCount, range: 1...64)
        guideOnly = args.flag("guide-only")
        try args.finish()
    }

    func wrkArguments(port: Int) -> [String] {
        ["-t\(wrkThreads)", "-c\(connections)", "-d\(duration)s", "http://\(target.host):\(port)\(path)"]
    }

    /// nginx serving `root` on 127.0.0.1:`port` like our server: keep-alive, sendfile, no access log.
    func nginxConfiguration(root: String, temp: String) -> String {
        """
        worker_processes \(nginxWorkers);
        daemon off;
        pid \(temp)/nginx.pid;
        error_log \(temp)/error.log warn;
        \(getuid() == 0 ? "user root;" : "")
        events { worker_connections 4096; }
        http {
            access_log off;
            sendfile on;
            tcp_nopush on;
            keepalive_requests 1000000;
            client_body_temp_path \(temp)/body;
            proxy_temp_path \(temp)/proxy;
            fastcgi_temp_path \(temp)/fastcgi;
            uwsgi_temp_path \(temp)/uwsgi;
            scgi_temp_path \(temp)/scgi;
            types { text/html html; text/css css; text/javascript js; image/svg+xml svg; application/json json; }
            server {
                listen 127.0.0.1:\(nginxPort);
                root \(root);
                index index.html;
                location / { try_files $uri $uri.html $uri/ =404; }
            }
        }
        """
    }

    func run() throws(BenchError) -> Report {
        let root = URL(fileURLWithPath: publicDirectory).standardizedFileURL.path
        var report = Report(command: "static")
        report.row("", "Compare the two with the same load generator, one after the other, on the same file:")
        report.row("", "  1. our server:  tombola --host 127.0.0.1 --port \(target.port) --public \(root)")
        report.row("", "     wrk " + wrkArguments(port: target.port).joined(separator: " "))
        report.row("", "  2. nginx on the same directory, with /tmp/tombola-nginx/nginx.conf =")
        for line in nginxConfiguration(root: root, temp: "/tmp/tombola-nginx").split(separator: "\n") where !line.isEmpty {
            report.row("", "       " + line)
        }
        report.row("", "     mkdir -p /tmp/tombola-nginx && nginx -p /tmp/tombola-nginx -c /tmp/tombola-nginx/nginx.conf")
        report.row("", "     wrk " + wrkArguments(port: nginxPort).joined(separator: " "))
        report.row("", "  ratio = our Requests/sec ÷ nginx Requests/sec (target ≥ 0.8)")
        report.field("path", .string(path))
        guard !guideOnly else { return report }
        guard let wrk = Subprocess.which("wrk"), let nginx = Subprocess.which("nginx") else {
            report.row("run", "skipped: wrk and nginx must both be installed", key: "ran", .bool(false))
            return report
        }
        guard Subprocess.httpStatus(host: target.host, port: target.port, path: path) == 200 else {
            throw .failed("\(target.url)\(path) does not answer 200; start the server first (see the guide above)")
        }
        let temp = "/tmp/tombola-bench-nginx-\(getpid())"
        try? FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: temp) }
        let configPath = temp + "/nginx.conf"
        do { try nginxConfiguration(root: root, temp: temp).write(toFile: configPath, atomically: true, encoding: .utf8) } catch {
            throw .failed("cannot write \(configPath)")
        }

        let ours = try runWrk(wrk, port: target.port)
        let server = try Subprocess.start(nginx, ["-p", temp, "-c", configPath], log: temp + "/stdout.log")
        defer { Subprocess.stop(server) }
        guard Subprocess.waitForPort(nginxPort, timeout: .seconds(5)),
              Subprocess.httpStatus(host: "127.0.0.1", port: nginxPort, path: path) == 200 else {
            let log = (try? String(contentsOfFile: temp + "/error.log", encoding: .utf8)) ?? ""
            throw .failed("nginx did not serve \(path) on port \(nginxPort): \(log.suffix(300))")
        }
        let theirs = try runWrk(wrk, port: nginxPort)
        Subprocess.stop(server)

        report.row("tombola", String(format: "%.0f requests/s, latency avg %@", ours.requestsPerSecond, ours.latency),
                   key: "tombolaRequestsPerSecond", .double(ours.requestsPerSecond.rounded()))
        report.row("nginx", String(format: "%.0f requests/s, latency avg %@", theirs.requestsPerSecond, theirs.latency),
                   key: "nginxRequestsPerSecond", .double(theirs.requestsPerSecond.rounded()))
        let ratio = theirs.requestsPerSecond > 0 ? ours.requestsPerSecond / theirs.requestsPerSecond : 0
        report.row("ratio", String(format: "%.2f× nginx", ratio), key: "ratio", .double((ratio * 1000).rounded() / 1000))
        if ours.errors != nil || theirs.errors != nil {
            report.row("wrk errors", "tombola: \(ours.errors ?? "none"); nginx: \(theirs.errors ?? "none")")
        }
        return report
    }

    struct WrkResult {
        var requestsPerSecond: Double
        var latency: String
        var errors: String?
    }

    func runWrk(_ wrk: String, port: Int) throws(BenchError) -> WrkResult {
        let text = try Subprocess.output(wrk, wrkArguments(port: port))
        var result = WrkResult(requestsPerSecond: 0, latency: "?")
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if line.hasPrefix("Requests/sec:"), words.count >= 2 { result.requestsPerSecond = Double(words[1]) ?? 0 }
            if words.first == "Latency", words.count >= 2 { result.latency = String(words[1]) }
            if line.contains("Socket errors") || line.contains("Non-2xx") { result.errors = line.trimmingCharacters(in: .whitespaces) }
        }
        guard result.requestsPerSecond > 0 else { throw .failed("wrk gave no Requests/sec on port \(port):\n\(text)") }
        return result
    }
}
