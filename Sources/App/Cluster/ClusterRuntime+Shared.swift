import RedisStore

/// The cluster-wide channels beside the draws' own (docs/CLUSTER.md): branding changes and
/// host keys replaced by `tombola host-link`, heard by every instance whatever draws it serves
/// pages of.
extension ClusterRuntime {
    /// Subscribes this instance to the shared channels (start-up, on the loop, before the
    /// subscriber starts). Once the channels are live, and after each reconnect, what may have
    /// been missed is read again.
    func subscribeShared() {
        subscriber.subscribe(BrandingRecord.channel) { [self] payload in
            branding.announced(payload, runtime: self)
        }
        subscriber.subscribe(HostKeyReset.channel) { [self] payload in
            node(String(decoding: payload, as: UTF8.self))?.refreshHostKey()
        }
        var connections = 0
        subscriber.onReady { [self] in
            // Also called when a channel is added; only a new connection may have missed messages.
            guard subscriber.readyCount != connections else { return }
            let reconnected = connections != 0
            connections = subscriber.readyCount
            // The first connection too: a hash read at start-up, before `tombola:host-keys` was
            // live, misses a `tombola host-link` announced in between.
            for node in nodes.values { node.refreshHostKey() }
            if reconnected { branding.resend(to: Array(nodes.values)) }
        }
    }
}
