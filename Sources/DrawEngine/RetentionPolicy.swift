/// When a draw's personal data is erased (issue #41, `retentionDays`): a pure decision, so the
/// server's hourly sweep and the admin view's "erased on" date agree, and tests need no clock.
/// Times are seconds since 1970, as the storage keeps them.
public enum RetentionPolicy {
    public static let secondsPerDay = 86_400.0

    /// The moment the entrants' names, fields and devices are due to go: `days` after the draw's
    /// last activity (its newest record or entrant change, whichever is later), so a draw still
    /// in use (a round, a join, a removal) pushes its own erasure back.
    public static func dueAt(days: Int, lastActivity: Double) -> Double {
        lastActivity + Double(days) * secondsPerDay
    }

    /// Whether the sweep erases now: a retention is set, some entrant still holds personal data,
    /// entries are closed (a draw taking entries is in use, whatever its dates) and the due
    /// moment has passed (a sweep missed while the server was down runs at the next start).
    public static func isDue(days: Int?, lastActivity: Double, personalEntrants: Int, entriesOpen: Bool, now: Double) -> Bool {
        guard let days, personalEntrants > 0, !entriesOpen else { return false }
        return now >= dueAt(days: days, lastActivity: lastActivity)
    }
}
