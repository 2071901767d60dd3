import Posix
import Storage
import Synchronization

/// Brings host keys (`tombola host-link`) and the admin key (`tombola admin-link`) that another
/// process stored while the server runs into the rooms and the service, so a new link works at
/// once and the old key stops working. Once a
/// second it asks SQLite whether another connection committed (`PRAGMA data_version`, a tiny
/// read on the storage thread) and only then reads the draws' host key hashes and the admin key's.
///
/// `@unchecked Sendable`: `version` and `timer` are used only on `loop`; `stopped` is atomic.
final class HostKeyWatch: @unchecked Sendable {
    private let loop: EventLoop
    private let storage: StorageQueue
    private let interval: Duration
    /// Takes the stored host key hashes by code and the admin key's hash when another
    /// connection committed (the service's rooms, index and admin key).
    private let changed: @Sendable ([String: String], String?) -> Void
    private let stopped = Atomic<Bool>(false)
    private var version: Int?
    private var timer: ScheduledTimer?

    init(loop: EventLoop, storage: StorageQueue, interval: Duration = .seconds(1),
         changed: @escaping @Sendable ([String: String], String?) -> Void) {
        self.loop = loop
        self.storage = storage
        self.interval = interval
        self.changed = changed
    }

    func start() {
        loop.execute { [self] in schedule() }
    }

    /// From any thread; the next check does nothing and the pending one is cancelled.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        // The pending check holds this watch (and through `changed` the service): let it go now.
        loop.execute { [self] in
            timer?.cancel()
            timer = nil
        }
    }

    private func schedule() {
        guard !stopped.load(ordering: .relaxed) else { return }
        timer = loop.scheduleTimer(after: interval) { [self] in check() }
    }

    private func check() {
        guard !stopped.load(ordering: .relaxed) else { return }
        let known = version
        storage.async({ database -> (version: Int, hashes: (draws: [String: String], admin: String?)?) in
            let now = try database.dataVersion()
            // The first look reads the hashes too: a key stored since start-up read them counts.
            guard known != now else { return (now, nil) }
            return (now, (try database.loadHostKeyHashes(), try database.serverKeyHash(AdminKey.name)))
        }, completion: { [self] result in
            loop.execute { [self] in
                if case .success(let seen) = result {
                    version = seen.version
                    if let hashes = seen.hashes { changed(hashes.draws, hashes.admin) }
                }
                schedule()
            }
        })
    }
}
