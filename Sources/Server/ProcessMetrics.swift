import Glibc
import Posix

/// The standard `process_*` metrics of Prometheus clients, read at scrape time from
/// `/proc/self` only (never `/proc/stat` or `/proc/meminfo`, which systemd's `ProcSubset=pid`
/// hides): CPU seconds, resident and virtual memory, open and maximum descriptors, start time.
public enum ProcessMetrics {
    public static func register(in registry: MetricsRegistry) {
        let started = startTime()
        registry.gauge("process_start_time_seconds", help: "Start time of the process since the Unix epoch, in seconds.") { started }
        registry.counter("process_cpu_seconds_total", help: "User and system CPU time spent, in seconds.") {
            guard let fields = statFields(), fields.count > 14, let user = Double(fields[13]), let system = Double(fields[14]) else { return 0 }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
        registry.gauge("process_resident_memory_bytes", help: "Resident memory size, in bytes.") { statm(1) }
        registry.gauge("process_virtual_memory_bytes", help: "Virtual memory size, in bytes.") { statm(0) }
        registry.gauge("process_open_fds", help: "Open file descriptors.") { openDescriptors() }
        registry.gauge("process_max_fds", help: "The limit of open file descriptors.") {
            var limit = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
            return Double(limit.rlim_cur)
        }
    }

    /// /proc/self/stat's start (clock ticks after boot) placed on the wall clock with
    /// CLOCK_BOOTTIME, not /proc/stat's `btime` (hidden by `ProcSubset=pid`).
    static func startTime() -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var boot = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        guard let fields = statFields(), fields.count > 21, let start = Double(fields[21]) else { return WallClock.unixMilliseconds() / 1000 }
        let sinceBoot = Double(boot.tv_sec) + Double(boot.tv_nsec) / 1e9
        return (WallClock.unixMilliseconds() / 1000 - sinceBoot + start / ticks).rounded()
    }

    /// `/proc/self/stat` after the command name (which may hold spaces), from field 3 (state) on:
    /// index 13 is utime, 14 stime, 21 starttime (man 5 proc: fields 14, 15, 22).
    static func statFields() -> [Substring]? {
        guard let text = read("/proc/self/stat"), let end = text.lastIndex(of: ")") else { return nil }
        return ["", ""] + text[text.index(after: end)...].split(separator: " ")
    }

    /// Field `index` of `/proc/self/statm` (pages) in bytes.
    static func statm(_ index: Int) -> Double {
        guard let fields = read("/proc/self/statm")?.split(separator: " "), fields.count > index,
              let pages = Double(fields[index]) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func openDescriptors() -> Double {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = -1  // the directory's own descriptor
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { $0.first }
            if name != UInt8(ascii: ".") { count += 1 }
        }
        return Double(max(0, count))
    }

    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}
