@testable import DrawEngine
import JSON
import Testing

/// Issue #40: a beacon-sealed round of a draw with claims (§15) or a waiting list fixes its
/// alternates from the beacon key, and the product's own records verify ("round differs from its
/// beacon lock" before: the lock held `"alternates":[]`, the round the drawn ones).
@Suite struct BeaconAlternatesTests {
    static let ids = (0..<12).map { "ID\(String($0, radix: 10))XXXXX".prefix(8).description }

    static func sealedRound(_ config: DrawConfig) throws -> (Harness, RoundRecord) {
        var harness = try Harness(config, seed: 40)
        harness.records += try harness.draw.start(contributions: harness.contributions(2), audience: nil, at: harness.tick())
        harness.records += try harness.draw.stopSealed(chain: .quicknet, relays: BeaconSealTests.relays, at: harness.tick())
        #expect(harness.records.last?.json["alternates"] == nil, "the lock fixes no alternates: the beacon key does")
        let records = try harness.draw.finishSealed(randomness: BeaconSealTests.randomness, signature: BeaconSealTests.signature,
                                                    relays: BeaconSealTests.relays, at: harness.tick(),
                                                    nextSeed: Seed(bytes: Array(repeating: 5, count: 32))!)
        harness.records += records
        guard case .round(let round) = records[1].body else { throw DrawError.wrongPhase }
        return (harness, round)
    }

    @Test func aSealedClaimRoundVerifies() throws {
        var config = DrawConfig(pool: .checkin(Self.ids), perStop: .count(2), claim: ClaimSetting(seconds: 30, alternates: 3))
        config.beacon = true
        let (harness, round) = try Self.sealedRound(config)
        #expect(round.alternates?.count == 3)
        let report = harness.verify()
        #expect(report.passed, "\(report.checks.filter { !$0.ok }.map(\.line))")
    }

    @Test func aSealedWaitlistRoundVerifies() throws {
        var config = DrawConfig(pool: .range(from: 1, to: 20), perStop: .count(3), waitlist: true)
        config.beacon = true
        let (harness, round) = try Self.sealedRound(config)
        #expect(round.alternates?.count == 17)
        let report = harness.verify()
        #expect(report.passed, "\(report.checks.filter { !$0.ok }.map(\.line))")
    }
}
