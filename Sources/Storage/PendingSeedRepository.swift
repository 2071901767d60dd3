/// The sealed seed of a draw's pending commitment and, while its round rolls, what Start froze
/// (migration 7, issue #40). One row per draw, replaced by each new commitment.
public struct PendingSeedRow: Sendable, Equatable {
    public var commitment: String
    public var sealed: String
    public var rolling: String?

    public init(commitment: String, sealed: String, rolling: String? = nil) {
        self.commitment = commitment
        self.sealed = sealed
        self.rolling = rolling
    }
}

extension Database {
    /// Stores the sealed seed of draw `code`'s new pending commitment (nothing rolls on it yet).
    public func savePendingSeed(drawCode code: String, commitment: String, sealed: String) throws(StorageError) {
        try statement("INSERT INTO pending_seeds (draw_code, commitment, sealed, rolling) VALUES (?, ?, ?, NULL) "
                      + "ON CONFLICT (draw_code) DO UPDATE SET commitment = excluded.commitment, sealed = excluded.sealed, rolling = NULL")
            .run([.text(code), .text(commitment), .text(sealed)])
    }

    /// Keeps what the Start of the round on `commitment` froze; false when the stored seed is another commitment's.
    @discardableResult
    public func savePendingRolling(drawCode code: String, commitment: String, rolling: String) throws(StorageError) -> Bool {
        try statement("UPDATE pending_seeds SET rolling = ? WHERE draw_code = ? AND commitment = ?")
            .run([.text(rolling), .text(code), .text(commitment)])
        return try statement("SELECT 1 FROM pending_seeds WHERE draw_code = ? AND commitment = ? AND rolling IS NOT NULL")
            .query([.text(code), .text(commitment)]) { _ in true }.first ?? false
    }

    /// Draw `code`'s pending seed row, or nil.
    public func pendingSeed(drawCode code: String) throws(StorageError) -> PendingSeedRow? {
        try statement("SELECT commitment, sealed, rolling FROM pending_seeds WHERE draw_code = ?").query([.text(code)]) { row in
            PendingSeedRow(commitment: row.text(0), sealed: row.text(1), rolling: row.isNull(2) ? nil : row.text(2))
        }.first
    }
}
