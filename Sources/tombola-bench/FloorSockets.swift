import CLinux
import Glibc

/// `IP_BIND_ADDRESS_NO_PORT` (linux/in.h); Glibc's headers do not export it.
private let ipBindAddressNoPort: Int32 = 24
/// `RUSAGE_THREAD` (sys/resource.h, _GNU_SOURCE only).
private let rusageThread: Int32 = 1

/// The raw sockets of `floor` and `floor-reader`: plain blocking/non-blocking TCP on
/// 127.0.0.x, with no loop and no protocol, so the figures are the kernel's own cost.
enum FloorSockets {
    static func loopback(_ lastOctet: Int, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = in_addr_t((UInt32(127) << 24 | UInt32(lastOctet)).bigEndian)
        return address
    }

    static func withSockaddr<R>(_ address: sockaddr_in, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafeBytes(of: address) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }

    /// A blocking listener on 127.0.0.1 and a free port: (descriptor, port).
    static func listen() throws(BenchError) -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .failed("socket: \(errorName(clinux_errno()))") }
        var address = loopback(1, port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withSockaddr(address) { bind(fd, $0, $1) } == 0 && Glibc.listen(fd, 65535) == 0
            && withUnsafeMutableBytes(of: &address) { getsockname(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length) } == 0
        guard bound else {
            let code = clinux_errno()
            close(fd)
            throw .failed("listen on 127.0.0.1: \(errorName(code))")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A blocking connect from 127.0.0.`source` to 127.0.0.1:`port`: the descriptor, or -errno.
    static func connect(port: Int, source: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return -clinux_errno() }
        var one: Int32 = 1
        // The port is chosen at connect time, so each source has the whole ephemeral range.
        _ = setsockopt(fd, Int32(IPPROTO_IP), ipBindAddressNoPort, &one, socklen_t(MemoryLayout<Int32>.size))
        var ok = withSockaddr(loopback(source, port: 0)) { bind(fd, $0, $1) } == 0
        if ok {
            var result: Int32
            repeat { result = withSockaddr(loopback(1, port: port)) { Glibc.connect(fd, $0, $1) } }
            while result != 0 && clinux_errno() == EINTR
            ok = result == 0
        }
        guard ok else {
            let code = clinux_errno()
            close(fd)
            return -code
        }
        return fd
    }

    static func setNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// "ECONNREFUSED (111)".
    static func errorName(_ code: Int32) -> String {
        let names: [Int32: String] = [
            EAGAIN: "EAGAIN", ECONNREFUSED: "ECONNREFUSED", ECONNRESET: "ECONNRESET", EPIPE: "EPIPE",
            EMFILE: "EMFILE", ENFILE: "ENFILE", EADDRNOTAVAIL: "EADDRNOTAVAIL", EADDRINUSE: "EADDRINUSE",
            ETIMEDOUT: "ETIMEDOUT", ENOSYS: "ENOSYS", EPERM: "EPERM", ENOMEM: "ENOMEM", EINVAL: "EINVAL",
            ENOTSUP: "ENOTSUP", EACCES: "EACCES",
        ]
        return "\(names[code] ?? "errno") (\(code))"
    }

    /// CPU seconds (user + system) of the calling thread.
    static var threadCPUSeconds: Double {
        var usage = rusage()
        getrusage(__rusage_who_t(rusageThread), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    }

    /// Monotonic seconds.
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Sleeps until the monotonic time `deadline` (seconds); returns at once when it has passed.
    static func sleep(until deadline: Double) {
        var time = timespec(tv_sec: Int(deadline), tv_nsec: Int((deadline - deadline.rounded(.down)) * 1e9))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }
}
