/// Everything the draw engine refuses, as stable machine codes (`code`). The words users
/// read live in App/Public tables. A throwing call leaves the draw unchanged.
public enum DrawError: Error, Equatable, Sendable, CaseIterable {
    /// `from` > `to`, or a bound outside ±(2^53 − 1).
    case invalidRange
    /// Fewer than 2 numbers or names.
    case poolTooSmall
    /// More than 10^12 numbers.
    case poolTooLarge
    /// More than 100,000 names.
    case tooManyEntrants
    /// A name longer than 200 UTF-8 bytes or with a control character.
    case badEntrant
    /// An exclusion outside the pool, or more than 100,000 exclusions.
    case badExclusion
    /// Every number or name is excluded.
    case allExcluded
    /// `perStop` outside 1…100,000, or "all" with more than 100,000 left.
    case badPerStop
    /// A prize without a name (1–100 characters), a count outside 1…1,000,000, more than
    /// 100 prizes, or a prize index outside the list.
    case badPrize
    /// The audience number is not 1–32 ASCII digits.
    case badAudience
    /// The command does not fit the current phase.
    case wrongPhase
    /// No seed has been committed for the next draw.
    case notCommitted
    /// No eligible entrant is left.
    case poolExhausted
    /// Every prize has all its winners.
    case prizesDone
    /// The round is not on the board (never drawn, or before the last Clear).
    case unknownRound
    /// The winner is not a current winner of that round.
    case unknownWinner
    /// The winner was voided already.
    case alreadyVoided
    /// A void reason must be 1–200 characters without control characters.
    case badReason
    /// Stored records do not form a valid chain.
    case corruptHistory
    /// A detailed list names the same entrant (name or id) twice; merge the rows first.
    case duplicateEntrant
    /// An entrant's tickets are outside 1…1,000,000.
    case badTickets
    /// A group (of an entrant or a prize) is longer than 100 bytes or has a control character,
    /// a prize names more than 100 groups, or a prize limits groups of a range pool.
    case badGroup
    /// No entrant left is eligible for the current prize (its groups).
    case noneEligible
    /// `excludeWinnersOf`: more than 20 draws, a malformed or repeated code, the draw itself,
    /// an unknown draw, or a range pool.
    case badPastDraw
    /// `excludeWinnersOf` links a draw without its host key (or with a wrong one).
    case pastDrawKey
    /// `claim`: seconds outside 10…600, alternates outside 1…20, or a pool other than check-in.
    case badClaim
    /// `slowDown`: not a whole number of milliseconds in 1500…6000.
    case badSlowDown
    /// `retentionDays`: not a whole number of days in 1…3650.
    case badRetention
    /// A ticket book without a name, with a repeated name, numbers outside 0…999,999,999 or
    /// from > to, a colour that is not `#rrggbb`, or more than 100 books.
    case badBook
    /// Rehearsal switched on or off while the session holds rounds of the other kind (wipe or Clear first).
    case rehearsalMixed
    /// A wipe of rehearsal rounds when the session holds none, or holds real rounds.
    case notRehearsal
    /// `waitlist` (the whole order) for a pool of more than 10,000 entrants.
    case badWaitlist
    /// A reverse raffle (docs/FAIRNESS.md §21) with prizes, repeats, a claim, the whole order, a
    /// beacon seal, weights or a pool outside 2…10,000; or a void (no-show re-draw) in one.
    case badReverse
    /// Start in a reverse raffle whose pool holds one entrant: the last one in has won.
    case reverseDone
    /// A sign-off (issue #41): Start with four eyes before an observer signed the lock.
    case signoffRequired
    /// A sign-off of a round that is not the next (lock) or not drawn in this session (result).
    case badSignoffRound
    /// A sign-off of a chain head that is no longer the head (sign again).
    case signoffStale
    /// An observer's key or signature that is malformed or does not verify.
    case badSignoff
    /// The observer already signed this (the lock as it stands, or the result).
    case alreadySigned

    public var code: String {
        switch self {
        case .invalidRange: "invalid_range"
        case .poolTooSmall: "pool_too_small"
        case .poolTooLarge: "pool_too_large"
        case .tooManyEntrants: "too_many_entrants"
        case .badEntrant: "bad_entrant"
        case .badExclusion: "bad_exclusion"
        case .allExcluded: "all_excluded"
        case .badPerStop: "bad_per_stop"
        case .badPrize: "bad_prize"
        case .badAudience: "bad_audience"
        case .wrongPhase: "wrong_phase"
        case .notCommitted: "not_committed"
        case .poolExhausted: "pool_exhausted"
        case .prizesDone: "prizes_done"
        case .unknownRound: "unknown_round"
        case .unknownWinner: "unknown_winner"
        case .alreadyVoided: "already_voided"
        case .badReason: "bad_reason"
        case .corruptHistory: "corrupt_history"
        case .duplicateEntrant: "duplicate_entrant"
        case .badTickets: "bad_tickets"
        case .badGroup: "bad_group"
        case .noneEligible: "none_eligible"
        case .badBook: "bad_book"
        case .rehearsalMixed: "rehearsal_mixed"
        case .notRehearsal: "not_rehearsal"
        case .badWaitlist: "bad_waitlist"
        case .badReverse: "bad_reverse"
        case .reverseDone: "reverse_done"
        case .signoffRequired: "signoff_required"
        case .badSignoffRound: "bad_signoff_round"
        case .signoffStale: "signoff_stale"
        case .badSignoff: "bad_signoff"
        case .alreadySigned: "already_signed"
        case .badPastDraw: "bad_past_draw"
        case .pastDrawKey: "past_draw_key"
        case .badClaim: "bad_claim"
        case .badSlowDown: "bad_slow_down"
        case .badRetention: "bad_retention"
        }
    }
}
