import Testing
@testable import DrawEngine

/// The whole order (issue 45): a round draws its winners, then every other eligible entrant as its
/// waiting list (`alternates`, the same sampling continued, docs/FAIRNESS.md §15).
@Suite struct WaitlistTests {
    @Test func eachRoundDrawsTheWholeOrderOfItsPool() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 30), exclude: [.number(7)], perStop: .count(3), waitlist: true), seed: 45)
        for (round, left) in [(1, 29), (2, 26)] {
            _ = try harness.round()
            guard case .round(let r)? = harness.records.last(where: { $0.kind == "round" })?.body else { Issue.record("no round"); return }
            let order = r.winners + (r.alternates ?? [])
            #expect(r.round == round && r.winners.count == 3 && order.count == left && Set(order).count == left)
            #expect(!order.contains(.number(7)))
        }
        #expect(harness.verify().passed)
        #expect(throws: DrawError.badWaitlist) { try Draw(config: DrawConfig(pool: .range(from: 1, to: 10_001), waitlist: true)) }
        #expect(try DrawConfig(json: DrawConfig(waitlist: true).json).waitlist && DrawConfig.standard.json["waitlist"] == nil)
        // Claims may fix alternates up to the pool's size.
        _ = try Draw(config: DrawConfig(pool: .checkin([]), claim: ClaimSetting(seconds: 30, alternates: 500)))
    }
}
