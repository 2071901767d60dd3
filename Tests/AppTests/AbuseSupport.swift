import Glibc
import HTTPCore
import Posix
@testable import App
@testable import Server
import TestSupport

/// Helpers for the abuse tests: descriptor limits and a normal client's latency measured
/// while an attack runs. The server under attack is a `ChildServer`, so its memory and
/// latency are its own, not those of the suites running beside it in the test process.
enum Abuse {
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

    /// Memory budgets grow this much under a sanitizer (the child is sanitized too: shadow
    /// memory and redzones come with every allocation).
    static var memoryFactor: Int { isSanitized ? 4 : 1 }

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
    static func worstLatency(of server: ChildServer, path: String = "/", count: Int = 5) throws -> Double {
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
    static func openConnections(of server: ChildServer) throws -> Int {
        try openConnections(inMetrics: server.get("/metrics").text)
    }

    static func openConnections(of server: TestServer) throws -> Int {
        try openConnections(inMetrics: server.get("/metrics").text)
    }

    private static func openConnections(inMetrics text: String) throws -> Int {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tombola_http_open_connections ") }),
              let value = Double(line.split(separator: " ").last ?? "") else {
            throw ReaderError(description: "no open-connections gauge")
        }
        return Int(value) - 1
    }

    /// `waitUntil` (WebSocketTestSupport.swift) under the name these tests read best with.
    static func eventually(within timeout: Duration, _ condition: () throws -> Bool) rethrows -> Bool {
        try waitUntil(timeout: timeout, condition)
    }

    static let mebibyte = 1 << 20
}
