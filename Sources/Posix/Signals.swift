import CLinux
import Glibc

/// Process-wide signal set-up.
public enum Signals {
    /// A peer that closes early must give us `EPIPE`, not kill the process.
    public static func ignoreSIGPIPE() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Blocks `signals` on the calling thread; threads started afterwards inherit the mask.
    /// Call on the main thread before starting loops, then `wait(for:)`.
    public static func block(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Waits for one of `signals` (which must be blocked) and returns it.
    public static func wait(for signals: [Int32]) -> Int32 {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        return received
    }

    /// Waits up to `timeout` for one of `signals` (which must be blocked); nil when none came.
    public static func wait(for signals: [Int32], timeout: Duration) -> Int32? {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        let deadline = MonotonicClock.nanoseconds() + timeout.nanoseconds
        while true {
            let now = MonotonicClock.nanoseconds()
            let left = deadline > now ? deadline - now : 0
            var span = timespec(tv_sec: Int(left / 1_000_000_000), tv_nsec: Int(left % 1_000_000_000))
            let received = sigtimedwait(&set, nil, &span)
            if received > 0 { return received }
            if errno != EINTR || left == 0 { return nil }
        }
    }
}
