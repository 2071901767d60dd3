import JSON
import Testing
@testable import DrawEngine

/// Prizes limited to groups (docs/FAIRNESS.md §3): the pool a round draws from is the eligible,
/// not-yet-won part, locked into `poolHash` before Start.
@Suite struct GroupEligibilityTests {
    private static let staff: [Entrant] = [
        Entrant(name: "Ann", tickets: 1, group: "Sales"), Entrant(name: "Bob", tickets: 3, group: "Sales"),
        Entrant(name: "Cleo", group: "IT"), Entrant(name: "Dai", group: "IT"),
        Entrant(name: "Eve", group: "Board"), Entrant(name: "Finn"),
    ]

    private func config(_ prizes: [Prize], perStop: PerStop = .all) -> DrawConfig {
        DrawConfig(pool: .entries(Self.staff), perStop: perStop, prizes: prizes)
    }

    private func group(of winner: DrawValue) -> String? {
        Self.staff.first { $0.name == winner.description }?.group
    }

    @Test func aPrizeForSomeGroupsDrawsOnlyThem() throws {
        var harness = try Harness(config([Prize(name: "Sales prize", count: 2, onlyGroups: ["Sales"]),
                                          Prize(name: "Main", count: 1, exceptGroups: ["Board"])]), seed: 3)
        let sales = try harness.round()
        #expect(Set(sales.map(\.description)) == ["Ann", "Bob"])
        let main = try harness.round()
        #expect(main.count == 1 && !["Ann", "Bob", "Eve"].contains(main[0].description))
        let report = harness.verify()
        #expect(report.passed, "\(report.checks.filter { !$0.ok }.map(\.line))")
        let rounds = harness.records.compactMap { record -> RoundRecord? in
            if case .round(let round) = record.body { return round }
            return nil
        }
        guard case .list(_, _, let removed, let filter, _) = rounds[0].pool else { Issue.record("not a list"); return }
        #expect(filter == GroupFilter(only: ["Sales"], except: []) && removed == [2, 3, 4, 5])
        #expect(rounds[0].eligible == 2)
    }

    @Test func theCommitLocksThePrizesEligiblePool() throws {
        let harness = try Harness(config([Prize(name: "IT", count: 1, onlyGroups: ["IT"])]), seed: 6)
        let expected = PoolSpec.list(count: 6, entrantsHash: EntrantList.hash(
            names: Self.staff.map(\.name), tickets: [1, 3, 1, 1, 1, 1], groups: ["Sales", "Sales", "IT", "IT", "Board", ""]),
            removed: [0, 1, 4, 5], groups: GroupFilter(only: ["IT"], except: []))
        #expect(harness.draw.commit?.poolHash == expected.poolHash)
        #expect(harness.draw.remaining == 2)
    }

    @Test func noEligibleEntrantLeftIsNoneEligible() throws {
        var harness = try Harness(config([Prize(name: "Board", count: 2, onlyGroups: ["Board"])], perStop: .count(1)), seed: 2)
        #expect(try harness.round() == [.name("Eve")])
        let before = Snapshot(harness.draw)
        #expect(throws: DrawError.noneEligible) { try harness.round() }
        #expect(Snapshot(harness.draw) == before)
    }

    @Test func aReplacementKeepsItsPrizesGroups() throws {
        var harness = try Harness(config([Prize(name: "IT", count: 1, onlyGroups: ["IT"])]), seed: 14)
        let first = try harness.round()[0]
        let replacement = try harness.void(round: 1, winner: first)
        #expect(replacement.count == 1 && group(of: replacement[0]) == "IT" && replacement[0] != first)
        #expect(harness.verify().passed)
    }

    @Test(arguments: [
        (DrawConfig(pool: .range(from: 1, to: 9), prizes: [Prize(name: "x", count: 1, onlyGroups: ["Sales"])]), DrawError.badGroup),
        (DrawConfig(pool: .entries(staff), prizes: [Prize(name: "x", count: 1, onlyGroups: [" "])]), .badGroup),
        (DrawConfig(pool: .entries(staff), prizes: [Prize(name: "x", count: 1, exceptGroups: ["a\u{7f}"])]), .badGroup),
        (DrawConfig(pool: .entries(staff), prizes: [Prize(name: "x", count: 1,
                                                          onlyGroups: (0...100).map { "g\($0)" })]), .badGroup),
    ])
    func badGroupLimitsAreRefused(config: DrawConfig, error: DrawError) throws {
        var draw = try Draw()
        let before = Snapshot(draw)
        #expect(throws: error) { try draw.configure(config) }
        #expect(Snapshot(draw) == before)
    }

    @Test func theVerifierRefusesAnIneligibleEntrantLeftInThePool() throws {
        var harness = try Harness(config([Prize(name: "IT", count: 2, onlyGroups: ["IT"])]), seed: 21)
        try harness.round()
        var json = harness.records.map(\.json)
        let r = json.lastIndex { $0["kind"]?.stringValue == "round" }!
        guard var members = json[r].objectValue, var pool = members["pool"]?.objectValue else { Issue.record("no pool"); return }
        pool["removed"] = .array([0, 1, 4].map { .int($0) })  // Finn (no group) left in
        members["pool"] = .object(pool)
        members["poolHash"] = .string(Hashing.sha256Hex(JSONValue.object(pool).canonicalBytes))
        members["eligible"] = .int(3)
        members["hash"] = nil
        members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
        json[r] = .object(members)
        let report = RoundVerifier.verify(records: json)
        #expect(report.checks[r].problem == "ineligible group in pool")
    }

    @Test func groupsWithoutTicketsStayUnweighted() throws {
        let people = ["Ann", "Bob", "Cleo"].map { Entrant(name: $0, group: "A") }
        var harness = try Harness(DrawConfig(pool: .entries(people)), seed: 1)
        try harness.round()
        guard case .round(let round) = harness.records.last(where: { $0.kind == "round" })?.body else { Issue.record("no round"); return }
        #expect(round.algorithm == Fairness.algorithm)
        #expect(harness.verify().passed)
    }
}
