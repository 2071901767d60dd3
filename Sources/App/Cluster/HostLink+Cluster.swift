import DrawRoomCore
import ClusterCore
import RedisStore
import Dispatch
import Locking
import Posix

extension HostLink {
    /// `tombola host-link CODE --redis …` (cluster mode): stores a fresh host key's hash for
    /// draw `code` (as typed, or upper-cased) in Redis and, in the same script, tells every
    /// running instance (`HostKeyReset`), which refuses the old key from then on. Needs only
    /// Redis (access to it is the authority, as the data folder is for single-box). Then writes
    /// the `host_key_reset` audit entry (without the key) to the draw's audit stream. Returns
    /// the draw's code, the new key and whether the audit entry was kept. Blocks.
    public static func issue(code: String, cluster settings: ClusterSettings) throws(Failure) -> (code: String, key: String, audited: Bool) {
        let group: EventLoopGroup
        do {
            group = try EventLoopGroup(loopCount: 1)
        } catch {
            throw .storage("\(error)")
        }
        // Behind Sentinel: the primary it names (the write needs no durability check of its own).
        let locator = settings.sentinel.map { RedisPrimaryLocator(settings: $0, loop: group.loops[0]) }
        let client = RedisClient(endpoint: settings.endpoint, loop: group.loops[0], locator: locator, requireDurable: false)
        client.start()
        defer {
            locator?.close()
            client.close()
            group.shutdown()
        }
        let key = DrawKeys.newSecret()
        let hash = DrawKeys.hash(key)
        let outcome = Lock<Result<String?, ClusterError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let candidates = code == code.uppercased() ? [code] : [code, code.uppercased()]
        group.loops[0].execute {
            func attempt(_ remaining: ArraySlice<String>) {
                guard let candidate = remaining.first else {
                    outcome.withLock { $0 = .success(nil) }
                    _ = done.signal()
                    return
                }
                HostKeyReset.replace(code: candidate, hash: hash, on: client) { result in
                    switch result {
                    case .success(true): outcome.withLock { $0 = .success(candidate) }
                    case .success(false): return attempt(remaining.dropFirst())
                    case .failure(let error): outcome.withLock { $0 = .failure(error) }
                    }
                    _ = done.signal()
                }
            }
            attempt(candidates[...])
        }
        done.wait()
        switch outcome.withLock({ $0 })! {
        case .success(let stored?):
            return (stored, key, recordReset(code: stored, client: client, loop: group.loops[0]))
        case .success(nil):
            throw .notInCluster(code: code, redis: settings.redisDescription)
        case .failure(.unavailable):
            throw .storage("cannot reach Redis at \(settings.redisDescription)")
        case .failure(let error):
            throw .storage("\(error)")
        }
    }

    /// The reset's audit entry, as single-box writes it (`{"via":"host-link"}`), chained after
    /// the draw's last entry (checked in the script, not fenced: no instance's lease is involved).
    private static func recordReset(code: String, client: RedisClient, loop: EventLoop) -> Bool {
        let kept = Lock(false)
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            let entry = AuditEntry(actor: "system", action: "host_key_reset", detail: .object(["via": .string("host-link")]))
            ClusterAuditLog.write(entry, code: code, at: DrawPersistence.now, lease: nil, after: nil, on: AuditStream(client: client)) { result in
                if case .success = result { kept.withLock { $0 = true } }
                done.signal()
            }
        }
        done.wait()
        return kept.withLock { $0 }
    }
}
