import Foundation
import Glibc

/// Runs helper programs (wrk, nginx, the server) for the static and startup commands.
enum Subprocess {
    /// The full path of `name` on PATH, or nil.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
        for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs to completion and returns stdout+stderr.
    static func output(_ executable: String, _ arguments: [String]) throws(BenchError) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { throw .failed("cannot run \(executable): \(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Starts a background process with its output discarded (or sent to `log`).
    static func start(_ executable: String, _ arguments: [String], log: String? = nil) throws(BenchError) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        if let log, FileManager.default.createFile(atPath: log, contents: nil), let handle = FileHandle(forWritingAtPath: log) {
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        do { try process.run() } catch { throw .failed("cannot run \(executable): \(error)") }
        return process
    }

    /// SIGTERM, then SIGKILL after `grace`; waits for the exit.
    static func stop(_ process: Process, grace: Duration = .seconds(5)) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while process.isRunning && ContinuousClock.now < deadline { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// One HTTP/1.1 GET on a fresh connection; the status code, or nil when nothing answered.
    static func httpStatus(host: String, port: Int, path: String, timeout: Duration = .seconds(2)) -> Int? {
        guard let socket = try? PosixHTTPProbe(host: host, port: port, timeout: timeout) else { return nil }
        return socket.get(path: path, host: "\(host):\(port)")
    }

    /// Waits until something accepts TCP connections on `port`.
    static func waitForPort(_ port: Int, host: String = "127.0.0.1", timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if (try? PosixHTTPProbe(host: host, port: port, timeout: .milliseconds(200))) != nil { return true }
            usleep(5_000)
        }
        return false
    }
}
