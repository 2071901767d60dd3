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

    /// A verdict the limiter decided later, for `key`: a named operator's page learns who it is.
    func keyChecked(_ id: UInt64, _ verdict: DrawRoomState.KeyVerdict, key: String) {
        whenReady { [self] in
            if verdict == .accepted, !hostKeyHash.matches(key), let ref = operators.lookup(key) { apply(.operatorIdentified(id, ref)) }
            apply(.keyChecked(id, verdict))
        }
    }

    /// Operator `id`'s key was revoked (already dropped from `operators`): its pages become viewers
    /// at once. From any thread.
    func operatorRevoked(_ id: String) {
        whenReady { [self] in apply(.operatorRevoked(id)) }
    }

    /// A command an operator gave over REST (`by`: nil for the owner's key): the audit log names them.
    func perform(_ command: HostCommand, seq: Int64?, client: String?, awaitReveal: Bool = false, by ref: OperatorRef?,
                 completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void) {
        guard let ref else { return perform(command, seq: seq, client: client, awaitReveal: awaitReveal, completion: completion) }
        guard ref.role.permits(command) else { return completion(.failure(CommandFailure(code: "role_forbidden"))) }
        whenReady({ [self] in
            let run = { [self] in
                let caller = registerCaller(completion)
                apply(.commandBy(ref, command, seq: seq, client: client, awaitReveal: awaitReveal, caller: caller))
            }
            if case .configure(let config) = command { return afterLinkedDraws(config.excludeWinnersOf.map(\.code), run) }
            run()
        }, otherwise: { completion(.failure(CommandFailure(code: "storage_failed"))) })
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
