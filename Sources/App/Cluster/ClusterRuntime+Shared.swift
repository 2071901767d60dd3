import Cluster

/// The cluster-wide channels beside the draws' own (docs/CLUSTER.md): branding changes and
/// host keys replaced by `tombola host-link`, heard by every instance whatever draws it serves
/// pages of.
extension ClusterRuntime {
    /// Subscribes this instance to the shared channels (start-up, on the loop, before the
    /// subscriber starts). After a reconnect, what may have been missed is read again.
    func subscribeShared() {
        subscriber.subscribe(BrandingRecord.channel) { [self] payload in
            branding.announced(payload, runtime: self)
        }
        subscriber.subscribe(HostKeyReset.channel) { [self] payload in
            node(String(decoding: payload, as: UTF8.self))?.refreshHostKey()
        }
        var connections = 0
        subscriber.onReady { [self] in
            let reconnected = subscriber.readyCount != connections && connections != 0
            connections = subscriber.readyCount
            guard reconnected else { return }
            branding.resend(to: Array(nodes.values))
            for node in nodes.values { node.refreshHostKey() }
        }
    }
}
