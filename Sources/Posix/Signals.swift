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

    /// Sends `signal` to this process (for tests and self-shutdown).
    public static func raise(_ signal: Int32) {
        kill(getpid(), signal)
    }
}
