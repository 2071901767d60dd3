/// Claims (docs/FAIRNESS.md §15): an unclaimed win passes to the round's next alternate, fixed
/// when the round was drawn. Nobody chooses who comes next: the `pass` record names the alternate
/// the round record lists after the ones already used, or none when they are used up.
extension Draw {
    /// The alternate the next pass of `round` goes to (nil when none is left or the round has none).
    public func nextAlternate(round: Int) -> DrawValue? {
        guard let b = board.first(where: { $0.round == round }), b.passes < b.alternates.count else { return nil }
        return b.alternates[b.passes]
    }

    /// Passes `winner`'s win of `round` (unclaimed) to the next alternate: a `pass` record with
    /// `reason` ("not claimed in 30 s"). The winner counts as voided (FAIRNESS.md §3, rule 2); the
    /// alternate becomes a winner of the round in the winner's place. With no alternate left, the
    /// prize stays unawarded (a prize tier then has a winner left for the next Start). Store the
    /// returned record before announcing it. The pending commitment is kept (nothing is drawn).
    public mutating func pass(round: Int, winner: DrawValue, reason: String, at: Int64) throws(DrawError) -> DrawRecord {
        guard (phase == .idle || phase == .revealed) && sealed == nil else { throw .wrongPhase }
        guard let b = board.firstIndex(where: { $0.round == round }) else { throw .unknownRound }
        guard board[b].winners.contains(winner) else { throw .unknownWinner }
        let reason = EntrantList.trim(reason)
        guard (1...DrawLimits.maxReasonLength).contains(reason.count), !EntrantList.hasControlCharacter(reason) else { throw .badReason }
        let alternate = nextAlternate(round: round)
        let record = append(.pass(round: round, winner: winner, alternate: alternate, reason: reason), at: at)
        _ = applyPass(round: round, winner: winner, reason: reason)
        return record
    }

    /// Folds a pass into the board and the session; returns the alternate it went to. The caller
    /// has checked that `winner` is a current winner of `round` (a restore compares the result).
    mutating func applyPass(round: Int, winner: DrawValue, reason: String) -> DrawValue? {
        guard let b = board.firstIndex(where: { $0.round == round }),
              let w = board[b].winners.firstIndex(of: winner) else { return nil }
        let alternate = nextAlternate(round: round)
        if let alternate {
            board[b].winners[w] = alternate
            winnersThisSession.insert(alternate)
            keptWinners.add([alternate])
        } else {
            board[b].winners.remove(at: w)
        }
        board[b].passes += 1
        board[b].voided.append(VoidedWinner(winner: winner, reason: reason))
        voidedThisSession.insert(winner)
        keptWinners.void(winner)
        relock()
        return alternate
    }
}
