import CHiredis
import RedisStore
import Foundation
import Glibc
import Posix
import Locking

/// A private `redis-server` for one test: Debian's binary, on a free loopback port, in a
/// fresh temporary directory, with an AOF fsynced on every write unless told otherwise.
/// `start()` returns once it answers PING (through hiredis's blocking API, not the client
/// under test) and the server answering is this child, not another test's Redis on the same
/// port. Stopped and its directory removed on `stop()` or deinit.
final class RedisServer: @unchecked Sendable {
    // @unchecked Sendable: used by one test at a time; `process` changes only in start/kill/stop.
    let directory: URL
    private(set) var port: Int
    private let extraArguments: [String]
    private var process: Process?

    static let durableArguments = ["--appendonly", "yes", "--appendfsync", "always"]

    init(arguments: [String] = RedisServer.durableArguments) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tombola-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        extraArguments = arguments
        port = 0
    }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    var endpoint: RedisEndpoint { RedisEndpoint(host: "127.0.0.1", port: port) }
    var pid: Int32 { process?.processIdentifier ?? 0 }

    static func binary() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for dir in path.split(separator: ":") + ["/usr/bin", "/usr/sbin"] {
            let candidate = "\(dir)/redis-server"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw TestFailure("redis-server is not installed (scripts/deps.sh lists it; apt-get install redis-server)")
    }

    /// Picks the port now, so a client can be pointed at a Redis that is not running yet.
    func reservePort(_ fixed: Int? = nil) throws {
        port = try fixed ?? Self.freePort()
        portIsReserved = true
    }

    /// Set by `reservePort()`: a client may already be pointed at this port, so `start()` never
    /// moves to another one.
    private var portIsReserved = false

    /// Starts on a fresh free port (first start) or the same port (restart), in the same directory.
    func start() throws {
        precondition(process == nil || !(process!.isRunning), "already running")
        var attempts = 0
        while true {
            attempts += 1
            if port == 0 || (attempts > 1 && !restarting && !portIsReserved) { port = try Self.freePort() }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try Self.binary())
            process.currentDirectoryURL = directory
            process.arguments = [
                "--port", String(port), "--bind", "127.0.0.1", "--dir", directory.path,
                "--save", "", "--daemonize", "no", "--logfile", directory.appendingPathComponent("redis.log").path,
            ] + extraArguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            self.process = process
            if waitForPong(process, deadline: .now + .seconds(15)) { return }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            // Exited at once, or another Redis answered: the port was taken meanwhile. A restart
            // or a reserved port must keep its port.
            if attempts >= 3 || restarting || portIsReserved { throw TestFailure("redis-server did not answer PING on port \(port): \(log())") }
        }
    }

    private var restarting = false

    /// SIGKILL, as a crash: nothing is flushed beyond what was fsynced.
    func crash() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Starts again on the same port and directory (after `crash()` or `stop()`).
    func restart() throws {
        restarting = true
        defer { restarting = false }
        try start()
    }

    func pause() { if let process { kill(process.processIdentifier, SIGSTOP) } }
    func resume() { if let process { kill(process.processIdentifier, SIGCONT) } }

    /// SIGKILL: the child inherits the test process's blocked signals, SIGTERM included,
    /// so a polite stop would never arrive; nothing here needs a clean shutdown.
    func stop() {
        crash()
    }

    func log() -> String {
        (try? String(contentsOf: directory.appendingPathComponent("redis.log"), encoding: .utf8)).map { String($0.suffix(2000)) } ?? "(no log)"
    }

    /// Polls PING over a blocking hiredis connection until "PONG" (a Redis loading its AOF
    /// answers LOADING first) or the deadline.
    /// A PONG from another process (the port was taken between picking it and this child's
    /// bind, which then exits) is a failure, never a start: the caller picks another port, or
    /// throws for a reserved one.
    private func waitForPong(_ process: Process, deadline: ContinuousClock.Instant) -> Bool {
        while ContinuousClock.now < deadline && process.isRunning {
            if let answering = Self.serverProcessID(port: port) { return answering == process.processIdentifier }
            usleep(10_000)
        }
        return false
    }

    /// The `process_id` of the Redis answering on `port`, once it answers (a Redis still
    /// loading its AOF answers LOADING first: nil).
    static func serverProcessID(port: Int) -> Int32? {
        guard ping(port: port), let info = command(port: port, ["INFO", "server"]) else { return nil }
        for line in info.split(whereSeparator: \.isNewline) where line.hasPrefix("process_id:") {
            return Int32(line.dropFirst("process_id:".count))
        }
        return nil
    }

    static func ping(port: Int) -> Bool {
        command(port: port, ["PING"]) == "PONG"
    }

    /// One command over a fresh blocking hiredis connection; the status or bulk reply's text.
    private static func command(port: Int, _ arguments: [String]) -> String? {
        guard let context = redisConnectWithTimeout("127.0.0.1", Int32(port), timeval(tv_sec: 1, tv_usec: 0)) else { return nil }
        defer { redisFree(context) }
        guard context.pointee.err == 0 else { return nil }
        let strings = arguments.map { strdup($0) }
        defer { strings.forEach { free($0) } }
        var argv = strings.map { UnsafePointer<CChar>($0) }
        var lengths = arguments.map { $0.utf8.count }
        guard let raw = redisCommandArgv(context, Int32(arguments.count), &argv, &lengths) else { return nil }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        guard reply.pointee.type == REDIS_REPLY_STATUS || reply.pointee.type == REDIS_REPLY_STRING, let text = reply.pointee.str else { return nil }
        return String(cString: text)
    }

    /// Ports this test process has handed out: never handed out twice, so two tests running in
    /// parallel cannot pick the same one (one of them may hold it unbound, by `reservePort()`).
    /// A pthread `Lock`, not `Synchronization.Mutex`, which ThreadSanitizer cannot see.
    private static let handedOut = Lock<Set<Int>>([])

    /// A free loopback port below the kernel's ephemeral range, so neither `bind(0)` elsewhere nor
    /// the outgoing connections of the clients under test (which retry against a reserved port
    /// that nobody listens on yet) land on it. Falls back to the kernel's pick if that range is odd.
    static func freePort() throws -> Int {
        let ephemeralLow = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32768
        if ephemeralLow > 12_000 {
            for _ in 0..<500 {
                let candidate = Int.random(in: (ephemeralLow - 10_000)..<ephemeralLow)
                guard handedOut.withLock({ $0.insert(candidate).inserted }) else { continue }
                if let listener = try? TCPListener(host: "127.0.0.1", port: candidate) {
                    listener.close()
                    return candidate
                }
            }
        }
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        handedOut.withLock { _ = $0.insert(listener.port) }
        return listener.port
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
