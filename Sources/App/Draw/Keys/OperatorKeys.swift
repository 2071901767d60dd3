import DrawRoomCore
import Locking
import Storage

/// One draw's named operators' key hashes (issue #41), active ones only, replaceable while the
/// server runs: adding one works at once, revoking one stops its key at once.
///
/// Sendable: the table sits behind a lock; checks come from any thread (REST and WebSocket).
final class OperatorKeys: Sendable {
    private let active = Lock<[(ref: OperatorRef, hash: String)]>([])

    /// The operator whose key `key` is, or nil. Every active hash is compared (constant time on
    /// the digests, as the owner's key is), so the answer's timing tells nothing of which matched.
    func lookup(_ key: String) -> OperatorRef? {
        let entries = active.withLock { $0 }
        var found: OperatorRef?
        for entry in entries where DrawKeys.matches(key, storedHash: entry.hash) { found = entry.ref }
        return found
    }

    func add(_ ref: OperatorRef, hash: String) {
        active.withLock { $0.append((ref, hash)) }
    }

    /// Drops operator `id`; whether it was active.
    func revoke(_ id: String) -> Bool {
        active.withLock { entries in
            let before = entries.count
            entries.removeAll { $0.ref.id == id }
            return entries.count != before
        }
    }
}

/// Every draw's `OperatorKeys` (single box; cluster mode has none yet), read from SQLite at
/// start-up and kept as the host adds and revokes operators.
final class OperatorTable: Sendable {
    private let draws = Lock<[String: OperatorKeys]>([:])

    /// Draw `code`'s operators (made empty on first use).
    func keys(for code: String) -> OperatorKeys {
        draws.withLock { draws in
            if let keys = draws[code] { return keys }
            let keys = OperatorKeys()
            draws[code] = keys
            return keys
        }
    }

    /// Takes the stored operators (start-up): the active ones' hashes.
    func load(_ rows: [OperatorRow]) {
        for row in rows where row.revokedAt == nil {
            guard let role = OperatorRole(rawValue: row.role) else { continue }
            keys(for: row.drawCode).add(OperatorRef(id: row.id, name: row.name, role: role), hash: row.keyHash)
        }
    }
}
