import Glibc
import RoomTestSupport
import HTTPCore
import Posix
@testable import App
import TestSupport

/// The real `tombola` executable in a child process of its own, on 127.0.0.1 port 0 with a
/// temporary data directory and `Public/`. Tests that measure a server's memory use this:
/// `residentBytes()` is the child's `VmRSS`, which other suites running in the test process
/// cannot move. The executable is the one built beside the test bundle (`swift test` builds
/// every product), or `TOMBOLA_BIN`.
final class ChildServer: DrawEndpoint {
    static let hostKey = DrawTestServer.hostKey
    static let adminKey = DrawTestServer.adminKey
    static let code = DrawTestServer.code

    let pid: pid_t
    let port: Int
    let dataDirectory: String
    let publicDirectory: String
    private var running = true

    /// Starts the server with `arguments` after the fixed ones and waits (with a deadline)
    /// for its banner, which names the port it was given.
    init(_ arguments: [String] = [], files: [String: String] = TestServer.defaultFiles) throws {
        let executable = try Self.executable()
        dataDirectory = try makeTemporaryDirectory()
        publicDirectory = try makeTemporaryDirectory()
        for (path, contents) in files { try writeFile(publicDirectory + "/" + path, contents) }
        let log = dataDirectory + "/server.log"
        let fixed = ["--host", "127.0.0.1", "--port", "0", "--data", dataDirectory, "--public", publicDirectory,
                     "--default-draw", Self.code, "--host-key", Self.hostKey, "--admin-key", Self.adminKey, "--loops", "2"]
        let child = try Self.spawn(executable, fixed + arguments, log: log)
        pid = child
        var found: Int?
        var status: Int32 = 0
        var exited = false
        _ = waitUntil(timeout: .seconds(60) * Abuse.slowdown) {
            found = Self.port(inBanner: Self.read(log))
            exited = found == nil && waitpid(child, &status, WNOHANG) == child
            return found != nil || exited
        }
        guard let found else {
            let output = Self.read(log)
            if !exited {
                kill(child, SIGKILL)
                waitpid(child, &status, 0)
            }
            removeTree(dataDirectory)
            removeTree(publicDirectory)
            throw TestFailure("\(executable) did not start: \(output)")
        }
        port = found
    }

    deinit { stop() }

    /// The child's resident set (`VmRSS` of /proc/PID/status) in bytes.
    func residentBytes() -> Int {
        let text = Self.read("/proc/\(pid)/status")
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }

    /// A plain TCP connection (`connect()` opens a WebSocket to the draw room).
    /// The child's CPU time so far (user + system, /proc/PID/stat fields 14 and 15), in seconds:
    /// unlike wall time, waiting for a core on a busy machine does not count.
    func cpuSeconds() -> Double {
        let stat = Self.read("/proc/\(pid)/stat")
        guard let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func socket() throws -> BlockingSocket {
        try BlockingSocket(host: "127.0.0.1", port: port, timeout: .seconds(5))
    }

    /// One request on a fresh connection.
    func get(_ path: String) throws -> RawResponse {
        let socket = try socket()
        try socket.send("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
        var reader = ResponseReader(socket: socket)
        return try reader.next()
    }

    /// SIGTERM, then SIGKILL if it has not exited within 10 s; removes its directories.
    func stop() {
        guard running else { return }
        running = false
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let exited = waitUntil(timeout: .seconds(10)) { waitpid(pid, &status, WNOHANG) != 0 }
        if !exited {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        removeTree(dataDirectory)
        removeTree(publicDirectory)
    }

    // MARK: Finding and starting the executable

    /// `tombola` beside the running test bundle (same build directory and sanitizer), else `TOMBOLA_BIN`.
    static func executable() throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        var candidates: [String] = []
        if length > 0 {
            let me = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = me.lastIndex(of: "/") { candidates.append(String(me[..<slash]) + "/tombola") }
        }
        if let variable = getenv("TOMBOLA_BIN") { candidates.append(String(cString: variable)) }
        for candidate in candidates where access(candidate, X_OK) == 0 { return candidate }
        throw TestFailure("no tombola executable at \(candidates): run `swift build` first")
    }

    private static func spawn(_ executable: String, _ arguments: [String], log: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of the test process's: a pipe another suite waits on must not stay open in the server.
        if let closeFrom = closeFrom { _ = closeFrom(&actions, 3) }
        // The test process may block signals on its threads; the server must start with none blocked.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))

        var environment: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            // A sanitized child keeps no quarantine (freed memory would otherwise count as resident),
            // and its leak report is not this test's subject.
            if !text.hasPrefix("ASAN_OPTIONS=") && !text.hasPrefix("TOMBOLA_") { environment.append(text) }
            cursor += 1
        }
        environment.append("ASAN_OPTIONS=detect_leaks=0:quarantine_size_mb=0")

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw TestFailure("posix_spawn \(executable): \(String(cString: strerror(result)))") }
        return pid
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), looked up at run time (the
    /// Glibc module does not declare it).
    private static let closeFrom: CloseFrom? = {
        guard let process = dlopen(nil, RTLD_LAZY),
              let symbol = dlsym(process, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    /// The port in the banner's `Home:` line, once the whole banner is written.
    private static func port(inBanner text: String) -> Int? {
        guard text.contains("Press Ctrl-C"),
              let line = text.split(separator: "\n").first(where: { $0.contains("Home:") }),
              let colon = line.lastIndex(of: ":") else { return nil }
        return Int(line[line.index(after: colon)...].filter(\.isNumber))
    }

    private static func read(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
