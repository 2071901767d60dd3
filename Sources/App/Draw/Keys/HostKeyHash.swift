import Locking

/// A draw's stored host key hash, replaceable while the server runs (`tombola host-link`
/// issues a new key from another process; `HostKeyWatch` brings it here).
///
/// Sendable: the hash sits behind a lock; checks come from any thread (REST and WebSocket).
final class HostKeyHash: Sendable {
    private let hash: Lock<String>

    init(_ hash: String) {
        self.hash = Lock(hash)
    }

    var value: String { hash.withLock { $0 } }

    /// Whether `key` hashes to the current hash (constant-time on the digests).
    func matches(_ key: String) -> Bool {
        DrawKeys.matches(key, storedHash: value)
    }

    /// Takes `newHash`; returns whether it differed.
    func replace(with newHash: String) -> Bool {
        hash.withLock { current in
            guard current != newHash else { return false }
            current = newHash
            return true
        }
    }
}
