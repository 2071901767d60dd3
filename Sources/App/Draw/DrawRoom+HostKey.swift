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
}
