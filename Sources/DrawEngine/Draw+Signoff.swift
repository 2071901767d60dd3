/// Observers' sign-offs (issue #41, docs/FAIRNESS.md §20): an observer signs the lock of the next
/// round before its Start, or the result of a round drawn in this session. A sign-off names the
/// chain's head as it was signed, so it vouches for everything up to there; it changes no winner.
extension Draw {
    /// What the observer asks to sign; `target` (the head the observer's key signed) nil when unsigned.
    public struct SignoffRequest: Sendable, Equatable {
        public var statement: Signoff.Statement
        public var round: Int
        public var target: String?
        public var publicKey: String?
        public var signature: String?

        public init(statement: Signoff.Statement, round: Int, target: String? = nil, publicKey: String? = nil, signature: String? = nil) {
            self.statement = statement
            self.round = round
            self.target = target
            self.publicKey = publicKey
            self.signature = signature
        }
    }

    /// Appends `observer`'s sign-off; store the returned record before announcing it. Only while idle or
    /// revealed (not while a round rolls or waits for its drand round). `badSignoffRound` for a lock
    /// that is not `nextRound`'s or a result not drawn in this session; `signoffStale` when the key
    /// signed another head; `badSignoff` when the signature does not verify; `alreadySigned` when
    /// the observer's sign-off of the same thing stands.
    public mutating func signoff(_ request: SignoffRequest, observer: String, observerId: String, at: Int64) throws(DrawError) -> DrawRecord {
        guard (phase == .idle || phase == .revealed) && sealed == nil else { throw .wrongPhase }
        var poolHash: String? = nil
        switch request.statement {
        case .lock:
            guard request.round == nextRound else { throw .badSignoffRound }
            guard let commit else { throw .notCommitted }
            poolHash = commit.poolHash
        case .result:
            guard board.contains(where: { $0.round == request.round }) else { throw .badSignoffRound }
        }
        if let target = request.target, target != lastHash { throw .signoffStale }
        if (request.publicKey != nil || request.signature != nil) && request.target == nil { throw .badSignoff }
        let signoff = Signoff(round: request.round, statement: request.statement, targetIndex: recordCount - 1, target: lastHash,
                              poolHash: poolHash, observer: observer, observerId: observerId, publicKey: request.publicKey,
                              signature: request.signature)
        guard recordCount > 0, signoff.signatureVerifies else { throw recordCount > 0 ? .badSignoff : .notCommitted }
        if signoffs.contains(where: { $0.observerId == observerId && $0.statement == signoff.statement && $0.round == signoff.round
                                      && (signoff.statement == .result || isCurrentLock($0)) }) {
            throw .alreadySigned
        }
        let record = append(.signoff(signoff), at: at)
        signoffs.append(signoff)
        return record
    }

    /// Whether `signoff` vouches for the lock of the round about to start as it stands: signed after
    /// the latest commitment and entrant list, of the pool lock pages show now.
    func isCurrentLock(_ signoff: Signoff) -> Bool {
        signoff.statement == .lock && signoff.round == nextRound && signoff.targetIndex >= lockBoundary
            && signoff.poolHash == lock.hash
    }

    /// Four eyes: an observer signed the lock of the round about to start (`foureyes` requires it).
    public var lockSignedOff: Bool { signoffs.contains(where: isCurrentLock) }
}
