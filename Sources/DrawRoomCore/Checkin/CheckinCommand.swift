/// A host's check-in command (REST `entries/*`, `entrants/<id>` DELETE; docs/PROTOCOL.md "Check-in").
public enum CheckinCommand: Sendable {
    /// Open entries, with new settings or the current ones.
    case open(CheckinSettings?)
    /// Close entries and lock the pool to the entrants in it now.
    case close
    case remove(id: String, reason: String)
    /// Forget every entrant's personal fields and empty the pool (public ids and the chain stay).
    case erase
    /// The same erase run by the server's retention sweep (`retentionDays`, RetentionPolicy):
    /// audited as `retention_erase` by `system`, and carried out on an archived draw too (its
    /// personal data is what retention is for; the chain, unchanged, stays read-only).
    case expire(days: Int)

    public var name: String {
        switch self {
        case .open: "entries_open"
        case .close: "entries_close"
        case .remove: "entrant_remove"
        case .erase: "entrants_erase"
        case .expire: "retention_erase"
        }
    }
}

extension HostCommand {
    /// The retention sweep's erase (the one command an archived draw still carries out).
    var isRetentionErase: Bool {
        if case .checkin(.expire) = self { return true }
        return false
    }
}
