import Glibc
import HTTPCore
import Posix
@testable import App
@testable import Server

/// Helpers for the abuse tests: process memory, descriptor limits and a normal client's
/// latency measured while an attack runs.
enum Abuse {
    /// The process's memory in bytes: the resident set (`VmRSS` of /proc/self/status) after
    /// handing freed heap back to the kernel, so a return to baseline is visible. Under a
    /// sanitizer, whose quarantine and shadow memory dwarf the heap, the live heap bytes its
    /// allocator reports instead.
    static func residentBytes() -> Int {
        if let allocatedBytes = sanitizerAllocatedBytes { return allocatedBytes() }
        _ = trimHeap()
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return 0 }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kilobytes * 1024
    }

    private typealias Counter = @convention(c) () -> Int

    /// `__sanitizer_get_current_allocated_bytes` when ASan or TSan is linked in.
    private static let sanitizerAllocatedBytes: Counter? = {
        guard let process = dlopen(nil, RTLD_LAZY),
              let symbol = dlsym(process, "__sanitizer_get_current_allocated_bytes") else { return nil }
        return unsafeBitCast(symbol, to: Counter.self)
    }()

    /// Whether the tests run under a sanitizer (everything is several times slower).
    static var isSanitized: Bool { sanitizerAllocatedBytes != nil }

    /// Time budgets grow this much under a sanitizer.
    static var slowdown: Double { isSanitized ? 4 : 1 }

    /// glibc's `malloc_trim(0)`, looked up at run time (the Glibc module does not import malloc.h).
    private static func trimHeap() -> Int32 {
        guard let process = dlopen(nil, RTLD_LAZY), let symbol = dlsym(process, "malloc_trim") else { return 0 }
        typealias Trim = @convention(c) (Int) -> Int32
        return unsafeBitCast(symbol, to: Trim.self)(0)
    }

    /// Raises the soft descriptor limit to at least `count` (up to the hard limit); returns the new soft limit.
    @discardableResult
    static func raiseFileLimit(to count: Int) -> Int {
        var limit = rlimit()
        getrlimit(RLIMIT_NOFILE_VALUE, &limit)
        if limit.rlim_cur < rlim_t(count) {
            limit.rlim_cur = min(rlim_t(count), limit.rlim_max)
            setrlimit(RLIMIT_NOFILE_VALUE, &limit)
            getrlimit(RLIMIT_NOFILE_VALUE, &limit)
        }
        return Int(limit.rlim_cur)
    }

    private static var RLIMIT_NOFILE_VALUE: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }

    /// The slowest of `count` normal requests, each on a fresh connection, in milliseconds.
    static func worstLatency(of server: TestServer, path: String = "/", count: Int = 5) throws -> Double {
        var worst = 0.0
        for _ in 0..<count {
            let start = MonotonicClock.nanoseconds()
            let response = try server.get(path)
            guard response.status == 200 else { throw ReaderError(description: "probe got \(response.status)") }
            worst = max(worst, millisecondsSince(start))
        }
        return worst
    }

    /// `tombola_http_open_connections` from /metrics, minus the probe's own connection.
    static func openConnections(of server: TestServer) throws -> Int {
        let text = try server.get("/metrics").text
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tombola_http_open_connections ") }),
              let value = Double(line.split(separator: " ").last ?? "") else {
            throw ReaderError(description: "no open-connections gauge")
        }
        return Int(value) - 1
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` passes; returns whether it held.
    static func eventually(within timeout: Duration, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = MonotonicClock.nanoseconds() + timeout.nanosecondsValue
        while MonotonicClock.nanoseconds() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    static let mebibyte = 1 << 20
}
