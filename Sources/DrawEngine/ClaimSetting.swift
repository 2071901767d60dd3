/// A draw whose winners must claim (docs/FAIRNESS.md §15, docs/PROTOCOL.md "Claims"): check-in
/// pools only. Each winner has `seconds` to tap "claim" on the phone they checked in with; an
/// unclaimed prize passes to the next of `alternates` entrants fixed when the round was drawn.
public struct ClaimSetting: Sendable, Equatable {
    /// The claim window, 10…600 seconds (30 by default).
    public var seconds: Int
    /// How many alternates each round fixes after its winners, 1…10,000 (3 by default; up to a
    /// pool's whole order, issue 45); fewer when the pool holds fewer entrants beyond the winners.
    public var alternates: Int

    public init(seconds: Int = 30, alternates: Int = 3) {
        self.seconds = seconds
        self.alternates = alternates
    }

    public static let secondsRange = 10...600
    public static let alternatesRange = 1...DrawLimits.maxWaitlist

    /// `claim_window`-free reason a pass records: "not claimed in 30 s".
    public var reason: String { "not claimed in \(seconds) s" }
}
