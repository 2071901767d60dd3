import CHiredis
import Cluster
import Foundation
import Glibc
import Posix

/// A private `redis-server` for one test: Debian's binary, on a free loopback port, in a
/// fresh temporary directory, with an AOF fsynced on every write unless told otherwise.
/// `start()` returns once it answers PING (through hiredis's blocking API, not the client
/// under test). Stopped and its directory removed on `stop()` or deinit.
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
    func reservePort() throws {
        port = try Self.freePort()
    }

    /// Starts on a fresh free port (first start) or the same port (restart), in the same directory.
    func start() throws {
        precondition(process == nil || !(process!.isRunning), "already running")
        var attempts = 0
        while true {
            attempts += 1
            if port == 0 || (attempts > 1 && !restarting) { port = try Self.freePort() }
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
            // Exited at once: most likely the port was taken meanwhile; a restart must keep its port.
            if attempts >= 3 || restarting { throw TestFailure("redis-server did not answer PING on port \(port): \(log())") }
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
    private func waitForPong(_ process: Process, deadline: ContinuousClock.Instant) -> Bool {
        while ContinuousClock.now < deadline && process.isRunning {
            if Self.ping(port: port) { return true }
            usleep(10_000)
        }
        return false
    }

    static func ping(port: Int) -> Bool {
        guard let context = redisConnectWithTimeout("127.0.0.1", Int32(port), timeval(tv_sec: 1, tv_usec: 0)) else { return false }
        defer { redisFree(context) }
        guard context.pointee.err == 0 else { return false }
        let command = "PING"
        let raw = command.withCString { pointer -> UnsafeMutableRawPointer? in
            var argv: [UnsafePointer<CChar>?] = [pointer]
            var lengths = [command.utf8.count]
            return redisCommandArgv(context, 1, &argv, &lengths)
        }
        guard let raw else { return false }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        guard reply.pointee.type == REDIS_REPLY_STATUS, let text = reply.pointee.str else { return false }
        return String(cString: text) == "PONG"
    }

    static func freePort() throws -> Int {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        return listener.port
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
