import CSystemd
import Glibc
import Posix

/// The service manager's notification socket (sd_notify(3) from libsystemd): the one caller of
/// its C API. Without `$NOTIFY_SOCKET` (not under systemd's `Type=notify`) every call does
/// nothing. There is nothing to free: each call opens, sends and closes a datagram socket.
public final class SystemdNotifier: Sendable {
    /// Half of `WatchdogSec=`, or nil when the unit asks for no watchdog (sd_watchdog_enabled(3)).
    public let watchdogInterval: Duration?

    public init() {
        var microseconds: UInt64 = 0
        watchdogInterval = sd_watchdog_enabled(0, &microseconds) > 0 && microseconds > 0
            ? .microseconds(Int64(microseconds / 2)) : nil
    }

    /// Start-up is done: the port is bound and the draws are open.
    public func ready(status: String) { notify("READY=1\nSTATUS=\(status)") }

    /// The graceful shutdown (or the drain before it) has begun.
    public func stopping() { notify("STOPPING=1") }

    /// Sends `WATCHDOG=1` every `watchdogInterval` on its own thread while every event loop of
    /// `server` still runs a task within that interval; a stuck loop stops the pings, and
    /// systemd restarts the service (`Restart=on-failure`).
    public func startWatchdog(for server: HTTPServer) {
        guard let interval = watchdogInterval else { return }
        let job = Unmanaged.passRetained(WatchdogJob(notifier: self, server: server, interval: interval)).toOpaque()
        var thread = pthread_t()
        if pthread_create(&thread, nil, { raw in
            Unmanaged<WatchdogJob>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, job) == 0 {
            pthread_detach(thread)
        }
    }

    private func notify(_ state: String) {
        _ = sd_notify(0, state)
    }

    fileprivate func watchdogPing() { notify("WATCHDOG=1") }
}

/// The watchdog thread's state; it ends when the server's loops are gone.
private final class WatchdogJob: @unchecked Sendable {
    // Read-only after init; used by the one watchdog thread.
    let notifier: SystemdNotifier
    weak var server: HTTPServer?
    let interval: Duration

    init(notifier: SystemdNotifier, server: HTTPServer, interval: Duration) {
        self.notifier = notifier
        self.server = server
        self.interval = interval
    }

    func run() {
        let microseconds = UInt32(clamping: interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        while let loops = server?.eventLoopGroup?.loops {
            let answered = MetricsCounter()
            for loop in loops { loop.execute { answered.increment() } }
            usleep(microseconds)
            if answered.value == loops.count { notifier.watchdogPing() }
        }
    }
}
