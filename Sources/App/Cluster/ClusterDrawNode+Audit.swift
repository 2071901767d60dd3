import DrawRoomCore

/// The owner's audit entries (docs/CLUSTER.md, *Audit log*).
extension ClusterDrawNode {
    /// Keeps `entry` in the draw's audit stream, after the records of its command (the caller
    /// calls this once they are stored). Only while this instance holds the lease. Loop only.
    func recordAudit(_ entry: AuditEntry?) {
        guard let entry, let lease = state.lease else { return }
        runtime.audit.record(entry, code: code, lease: lease)
    }
}
