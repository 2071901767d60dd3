import RedisStore
import JSON
import Server

/// `tombola host-link` in cluster mode (docs/CLUSTER.md, *Host link*): the draw's host key
/// hash changed in Redis; this instance refuses the old key from now on, and its pages that
/// authenticated with it become viewers, as in single-box.
extension ClusterDrawNode {
    static let roleViewer = JSONValue.object(["type": .string("role"), "role": .string("viewer")]).canonicalString

    /// Reads the draw's host key hash from Redis and takes it (a `tombola:host-keys` notice, or
    /// after the subscriber reconnected). Loop only.
    func refreshHostKey() {
        store.client.send(["HGET", keys.meta, "hostKeyHash"]) { [self] result in
            guard case .success(let reply) = result, let hash = reply.string, !hash.isEmpty else { return }
            hostKeyChanged(to: hash)
        }
    }

    /// Takes `hash`: the old key is refused from now on, here and (owner) by the room; every
    /// page that authenticated with it becomes a viewer. Loop only.
    func hostKeyChanged(to hash: String) {
        guard hostKey.replace(with: hash) else { return }
        // The owner's room demotes its hosts itself (they are this node's members too).
        room?.hostKeyChanged(to: hash)
        for (id, member) in members where member.isHost {
            members[id]?.isHost = false
            if room == nil { member.handle.send(text: Self.roleViewer) }
        }
        Log.event("cluster.host_key_reset", fields: ["draw": .string(code), "instance": .string(runtime.instanceID)],
                  text: "tombola: draw \(code) has a new host key (tombola host-link); the old one is refused")
    }
}
