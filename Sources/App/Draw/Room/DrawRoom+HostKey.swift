import DrawRoomCore
import JSON
import DrawEngine

extension DrawRoom {
    /// A new host key was stored (by `tombola host-link`): the new key works at once, the old
    /// one no longer does, and pages that authenticated with the old one become viewers.
    /// From any thread.
    func hostKeyChanged(to hash: String) {
        guard hostKeyHash.replace(with: hash) else { return }
        whenReady { [self] in apply(.hostKeyChanged) }
    }

    /// Cluster mode: the node checked page `id`'s key itself (ClusterDrawNode); the room answers
    /// it after everything queued before, so after that page's `join` (which waits for the room
    /// the same way): applied at once, a verdict could reach the room before its page and be
    /// dropped, the page getting neither `role` nor `bad_key`. From any thread.
    func keyChecked(_ id: UInt64, _ verdict: DrawRoomState.KeyVerdict) {
        whenReady { [self] in apply(.keyChecked(id, verdict)) }
    }
}

extension HostKeyHash {
    /// The one host-key check of an `auth` message, single-box and cluster mode alike: the
    /// rate limit first, then the digest; a wrong key spends one of `remote`'s tokens. Nil when
    /// the limiter holds the attempt for Redis's answer to an earlier spend (cluster mode, a
    /// key right after a wrong one): `decided` gets the verdict then, on another thread.
    func verdict(for key: String, from remote: String, limiter: AuthRateLimiter,
                 decided: @escaping @Sendable (DrawRoomState.KeyVerdict) -> Void) -> DrawRoomState.KeyVerdict? {
        limiter.attempt(remote, check: { [self] in matches(key) }, decided: decided)
    }
}
