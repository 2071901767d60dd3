import Glibc
import Posix
import Synchronization

/// Small reads of /proc text files.
enum ProcFile {
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `Name:   1234 kB` → 1234.
    static func kibField(_ name: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }
}

/// CPU time and memory of the server process, from /proc.
struct ProcessSample: Sendable {
    var cpuSeconds: Double
    var rssKiB: Int
    /// Peak resident set over the process's life (VmHWM).
    var peakKiB: Int
    /// Time its threads spent runnable but waiting for a CPU (schedstat), summed: large
    /// values mean the machine, not the program, set the pace.
    var runqueueWaitSeconds: Double
}

struct ServerProcess: Sendable {
    let pid: Int32

    func sample() -> ProcessSample? {
        guard let stat = ProcFile.read("/proc/\(pid)/stat"), let status = ProcFile.read("/proc/\(pid)/status"),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after "(comm)": state is field 3, utime field 14, stime field 15 (proc(5)).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ProcessSample(cpuSeconds: (utime + stime) / ticks,
                             rssKiB: ProcFile.kibField("VmRSS", in: status) ?? 0,
                             peakKiB: ProcFile.kibField("VmHWM", in: status) ?? 0,
                             runqueueWaitSeconds: runqueueWaitSeconds())
    }

    /// Sum over the threads of /proc/PID/task/TID/schedstat's second field (ns waiting to run).
    /// Threads that ended before the sample are not counted.
    private func runqueueWaitSeconds() -> Double {
        guard let tasks = opendir("/proc/\(pid)/task") else { return 0 }
        defer { closedir(tasks) }
        var total = 0.0
        while let entry = readdir(tasks) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard Int(name) != nil, let text = ProcFile.read("/proc/\(pid)/task/\(name)/schedstat") else { continue }
            let fields = text.split(separator: " ")
            if fields.count >= 2, let waited = Double(fields[1]) { total += waited / 1e9 }
        }
        return total
    }

    static var current: ServerProcess { ServerProcess(pid: getpid()) }

    /// The process listening on `host:port`, found through /proc/net/tcp and the socket links in
    /// /proc/*/fd. A socket bound to exactly `host` wins over a wildcard one (0.0.0.0 or ::),
    /// as in the kernel's own lookup: another program may listen on *:port beside ours.
    /// Nil when not found (e.g. another user's process).
    static func listening(onPort port: Int, host: String) -> ServerProcess? {
        var exact: Set<String> = []
        var wildcard: Set<String> = []
        func hex(_ value: Int, width: Int) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let wantedPort = hex(port, width: 4)
        // /proc/net/tcp writes an IPv4 address as the hex of its in-memory (network order) bytes.
        let octets = host.split(separator: ".").compactMap { UInt8($0) }
        let wantedHost = octets.count == 4 ? octets.reversed().map { hex(Int($0), width: 2) }.joined() : ""
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = ProcFile.read(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ")
                // local_address is ADDR:PORT in hex; state 0A is LISTEN; inode is column 10.
                guard columns.count > 9, columns[3] == "0A", let colon = columns[1].lastIndex(of: ":"),
                      columns[1][columns[1].index(after: colon)...] == Substring(wantedPort) else { continue }
                let address = columns[1][..<colon]
                let inode = "socket:[\(columns[9])]"
                if address == Substring(wantedHost) {
                    exact.insert(inode)
                } else if address.allSatisfy({ $0 == "0" }) {
                    wildcard.insert(inode)
                }
            }
        }
        return owner(of: exact) ?? owner(of: wildcard)
    }

    private static func owner(of inodes: Set<String>) -> ServerProcess? {
        guard !inodes.isEmpty, let proc = opendir("/proc") else { return nil }
        defer { closedir(proc) }
        while let entry = readdir(proc) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = Int32(name), pid != getpid() else { continue }
            guard let fds = opendir("/proc/\(pid)/fd") else { continue }
            defer { closedir(fds) }
            while let fdEntry = readdir(fds) {
                let fdName = withUnsafeBytes(of: fdEntry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                var buffer = [CChar](repeating: 0, count: 64)
                let length = readlink("/proc/\(pid)/fd/\(fdName)", &buffer, buffer.count - 1)
                guard length > 0 else { continue }
                let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if inodes.contains(target) { return ServerProcess(pid: pid) }
            }
        }
        return nil
    }
}

/// Samples the server's RSS every `interval` on its own thread, keeping the peak.
final class MemorySampler: Sendable {
    private let server: ServerProcess
    private let peak = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)

    init(server: ServerProcess, interval: Duration = .milliseconds(200)) {
        self.server = server
        let micros = useconds_t(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        let started = DetachedThread.start { [self] in
            while running.load(ordering: .relaxed) {
                if let sample = server.sample() { _ = peak.max(sample.rssKiB, ordering: .relaxed) }
                usleep(micros)
            }
            finished.store(true, ordering: .releasing)
        }
        precondition(started, "pthread_create failed")
    }

    /// Stops sampling and returns the peak RSS seen (KiB).
    func stop() -> Int {
        running.store(false, ordering: .relaxed)
        if let sample = server.sample() { _ = peak.max(sample.rssKiB, ordering: .relaxed) }
        return peak.load(ordering: .relaxed)
    }
}
