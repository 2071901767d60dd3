@testable import DrawEngine
import JSON
import Testing

/// Beacon-sealed rounds (docs/FAIRNESS.md §13): the lock, the value, the round drawn from them,
/// a void and a new Stop, a restart while waiting, and what the verifier says.
@Suite struct BeaconSealTests {
    /// quicknet round 1000's signature and randomness (any valid pair serves the engine).
    static let signature = "b44679b9a59af2ec876b1a6b1ad52ea9b1615fc3982b19576350f93447cb1125e342b73a8dd2bacbe47e4b6b63ed5e39"
    static let randomness = "fe290beca10872ef2fb164d2aa4442de4566183ec51c56ff3cd603d930e54fdd"
    static let relays = ["https://api.drand.sh", "https://drand.cloudflare.com"]

    func sealedHarness() throws -> Harness {
        var config = DrawConfig.standard
        config.pool = .range(from: 1, to: 1_000)
        config.perStop = .count(3)
        var harness = try Harness(config, seed: 21)
        try harness.round()
        harness.records += try harness.draw.start(contributions: harness.contributions(4), audience: "77", at: harness.tick())
        harness.records += try harness.draw.stopSealed(chain: .quicknet, relays: Self.relays, at: harness.tick())
        return harness
    }

    @Test func winnersAreThePublicFunctionOfTheLockAndTheRandomness() throws {
        var harness = try sealedHarness()
        let lockRecord = try #require(harness.records.last)
        guard case .beacon(let lock) = lockRecord.body else { Issue.record("no beacon record"); return }
        #expect(lock.beaconRound == BeaconChain.quicknet.firstRound(dueAtOrAfter: lockRecord.at + 1_000))
        #expect(BeaconChain.quicknet.dueMillis(of: lock.beaconRound) >= lockRecord.at + 1_000)
        #expect(BeaconChain.quicknet.dueMillis(of: lock.beaconRound) < lockRecord.at + 1_000 + 3_000)
        #expect(harness.draw.phase == .rolling && harness.draw.sealing == lock)
        #expect(throws: DrawError.wrongPhase) { _ = try harness.draw.stop(at: harness.now, nextSeed: Seed(bytes: Array(repeating: 3, count: 32))!) }

        let records = try harness.draw.finishSealed(randomness: Self.randomness, signature: Self.signature, relays: Self.relays,
                                                    at: harness.tick(), nextSeed: Seed(bytes: Array(repeating: 5, count: 32))!)
        harness.records += records
        #expect(records.map(\.kind) == ["beaconValue", "round", "commit"])
        guard case .round(let round) = records[1].body else { Issue.record("no round"); return }
        // Recomputed from public fields only: key = SHA256("tombola-drand-v1" 0x00 lockHash randomness).
        let key = Seed(bytes: Hashing.sha256(Array("tombola-drand-v1".utf8) + [0] + Hex.decode(lockRecord.hash)!
                                             + Hex.decode(Self.randomness)!))!
        let positions = Fairness.winnerPositions(seed: key, round: lock.lock.round, poolHash: Hex.decode(lock.lock.poolHash)!,
                                                 entropy: Hex.decode(lock.lock.entropy)!, eligible: lock.lock.eligible, count: 3)
        let pool = try #require(EligiblePool(spec: lock.lock.pool, entrants: nil))
        #expect(round.winners == positions.map(pool.element(at:)))
        #expect(round.seed == lock.lock.seed && round.winners.count == 3)
        try harness.draw.reveal()
        let report = harness.verify()
        #expect(report.passed, "\(report.checks.filter { !$0.ok }.map(\.line))")
        #expect(report.beaconRounds == [lock.beaconRound])
    }

    @Test func aVoidKeepsRollingAndANewStopSealsALaterRound() throws {
        var harness = try sealedHarness()
        guard case .beacon(let first) = harness.records.last!.body else { Issue.record("no beacon"); return }
        harness.now += 10_000
        harness.records.append(try harness.draw.voidSealed(reason: "0 of 2 relays needed answered", at: harness.tick()))
        #expect(harness.draw.phase == .rolling && harness.draw.sealing == nil)
        harness.records += try harness.draw.stopSealed(chain: .quicknet, relays: Self.relays, at: harness.tick())
        let second = try #require(harness.draw.sealing)
        #expect(second.beaconRound > first.beaconRound && second.lock.entropy == first.lock.entropy)
        harness.records += try harness.draw.finishSealed(randomness: Self.randomness, signature: Self.signature, relays: Self.relays,
                                                         at: harness.tick(), nextSeed: Seed(bytes: Array(repeating: 5, count: 32))!)
        let report = harness.verify()
        #expect(report.passed)
        #expect(report.checks.flatMap(\.notes).contains("drand round \(first.beaconRound) voided: 0 of 2 relays needed answered"))
    }

    @Test func aRestartWhileWaitingResumesTheSameRoundWithTheSameWinners() throws {
        let harness = try sealedHarness()
        var original = harness.draw
        let next = Seed(bytes: Array(repeating: 5, count: 32))!
        let drawn = try original.finishSealed(randomness: Self.randomness, signature: Self.signature, relays: Self.relays,
                                              at: harness.now + 5_000, nextSeed: next)
        var config = DrawConfig.standard
        config.pool = .range(from: 1, to: 1_000)
        config.perStop = .count(3)
        var restored = try Draw(config: config, restoring: harness.records)
        #expect(restored.phase == .rolling && restored.sealing == harness.draw.sealing)
        #expect(restored.armed.round == 2 && restored.armed.count == 3)
        let redrawn = try restored.finishSealed(randomness: Self.randomness, signature: Self.signature, relays: Self.relays,
                                                at: harness.now + 5_000, nextSeed: next)
        #expect(redrawn.map(\.hash) == drawn.map(\.hash))
    }

    @Test func theVerifierRefusesATamperedValueOrALateLock() throws {
        var harness = try sealedHarness()
        harness.records += try harness.draw.finishSealed(randomness: Self.randomness, signature: Self.signature, relays: Self.relays,
                                                         at: harness.tick(), nextSeed: Seed(bytes: Array(repeating: 5, count: 32))!)
        var records = harness.records.map(\.json)
        let valueIndex = records.firstIndex { $0["kind"]?.stringValue == "beaconValue" }!
        let lockIndex = valueIndex - 1
        func rehashed(_ json: JSONValue, _ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
            var members = json.objectValue!
            change(&members)
            members["hash"] = nil
            members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
            return .object(members)
        }
        var tampered = records
        tampered[valueIndex] = rehashed(records[valueIndex]) { $0["randomness"] = .string(String(repeating: "0", count: 64)) }
        #expect(RoundVerifier.verify(records: tampered).checks[valueIndex].problem == "randomness is not SHA-256(signature)")
        // A lock whose drand round was due before it was stored (plus the margin) is refused.
        records[lockIndex] = rehashed(records[lockIndex]) { $0["at"] = .int(BeaconChain.quicknet.dueMillis(of: UInt64($0["beaconRound"]!.intValue!))) }
        #expect(RoundVerifier.verify(records: records).checks[lockIndex].problem == "drand round due before the lock")
        // A lock naming a later round than the first due after it (a server that waited and chose) is refused.
        var later = harness.records.map(\.json)
        later[lockIndex] = rehashed(later[lockIndex]) { $0["at"] = .int($0["at"]!.intValue! - 3_000) }
        #expect(RoundVerifier.verify(records: later).checks[lockIndex].problem == "drand round later than the first due after the lock")
    }

    /// Sealed rounds carry the normal `lock` too, stored at Start (lock, beacon, beaconValue, round); a
    /// beaconVoid keeps it for the next Stop's beacon; a beacon without its lock (the chain has locks)
    /// or with another round's lock is refused.
    @Test func aSealedRoundHasItsLockBeforeTheBeaconRecords() throws {
        var harness = try sealedHarness()
        harness.now += 10_000
        harness.records.append(try harness.draw.voidSealed(reason: "no value", at: harness.tick()))
        harness.records += try harness.draw.stopSealed(chain: .quicknet, relays: Self.relays, at: harness.tick())
        harness.records += try harness.draw.finishSealed(randomness: Self.randomness, signature: Self.signature, relays: Self.relays,
                                                         at: harness.tick(), nextSeed: Seed(bytes: Array(repeating: 5, count: 32))!)
        let kinds = harness.records.map(\.kind)
        let first = try #require(kinds.lastIndex(of: "round").flatMap { kinds[..<$0].firstIndex(of: "lock") })
        #expect(Array(kinds[first...]) == ["lock", "round", "commit", "lock", "beacon", "beaconVoid", "beacon", "beaconValue",
                                            "round", "commit"])
        #expect(harness.verify().passed)
        let records = harness.records.map(\.json)
        func relinked(_ list: [JSONValue]) -> [JSONValue] {
            var out = [JSONValue]()
            for (index, record) in list.enumerated() {
                var members = record.objectValue!
                members["index"] = .int(Int64(index))
                members["prev"] = .string(out.last?["hash"]?.stringValue ?? String(repeating: "0", count: 64))
                members["hash"] = nil
                members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
                out.append(.object(members))
            }
            return out
        }
        let lastLock = kinds.lastIndex(of: "lock")!
        var stripped = records
        stripped.remove(at: lastLock)
        #expect(RoundVerifier.verify(records: relinked(stripped)).checks[lastLock].problem == LockCheck.roundWithoutLock)
        var wrong = records
        var members = wrong[lastLock].objectValue!
        members["round"] = .int(7)
        wrong[lastLock] = .object(members)
        #expect(RoundVerifier.verify(records: relinked(wrong)).checks[lastLock + 1].problem == LockCheck.lockMismatch)
    }

    /// A void in a sealed draw (issue #40, §13 "Voids"): the replacement waits for a drand round of
    /// its own (records void, lock, beacon naming what it replaces); nothing else may happen
    /// meanwhile; a restore resumes the same wait; the host's abandon seals a later R at once; the
    /// replacement is drawn from the last lock's key and the whole chain verifies.
    @Test func aVoidsReplacementIsSealedByItsOwnDrandRound() throws {
        var harness = try sealedHarness()
        harness.records += try harness.draw.finishSealed(randomness: Self.randomness, signature: Self.signature, relays: Self.relays,
                                                         at: harness.tick(), nextSeed: Seed.random(using: &harness.random))
        try harness.draw.reveal()
        guard case .round(let sealedRound) = harness.records[harness.records.count - 2].body else { Issue.record("no round"); return }
        let noShow = sealedRound.winners[1]
        let voided = try harness.draw.voidSealing(round: 2, winner: noShow, reason: "no-show", contributions: harness.contributions(1),
                                                  chain: .quicknet, relays: Self.relays, at: harness.tick())
        harness.records += voided
        #expect(voided.map(\.kind) == ["void", "lock", "beacon"])
        guard case .beacon(let lock) = voided[2].body, let replaces = lock.lock.replaces else { Issue.record("no replacement lock"); return }
        #expect(replaces == Replacement(round: 2, winner: noShow, void: voided[0].hash) && lock.count == 1 && lock.lock.round == 2)
        #expect(harness.draw.phase == .revealed && harness.draw.sealingReplacement)
        #expect(harness.draw.board.last?.winners.contains(noShow) == false)
        #expect(throws: DrawError.wrongPhase) { _ = try harness.draw.start(contributions: [], at: harness.now) }
        #expect(throws: DrawError.wrongPhase) { _ = try harness.draw.clear(at: harness.now) }

        // A restore while it waits comes back waiting for the same R, on a revealed board.
        var config = DrawConfig.standard
        config.pool = .range(from: 1, to: 1_000)
        config.perStop = .count(3)
        let restored = try Draw(config: config, restoring: harness.records)
        #expect(restored.sealing == lock && restored.sealingReplacement && restored.phase == .revealed)

        // The host gives R up: a later R seals it at once, under the same lock.
        harness.now += 10_000
        let abandoned = try harness.draw.abandonReplacementSeal(reason: "abandoned by the host: offline", chain: .quicknet,
                                                                relays: Self.relays, at: harness.tick())
        harness.records += abandoned
        #expect(abandoned.map(\.kind) == ["beaconVoid", "beacon"])
        let later = try #require(harness.draw.sealing)
        #expect(later.beaconRound > lock.beaconRound && later.lock == lock.lock)

        var again = restored
        let records = try harness.draw.finishSealed(randomness: Self.randomness, signature: Self.signature, relays: Self.relays,
                                                    at: harness.tick(), nextSeed: Seed.random(using: &harness.random))
        harness.records += records
        #expect(records.map(\.kind) == ["beaconValue", "round", "commit"])
        guard case .round(let replacement) = records[1].body else { Issue.record("no replacement"); return }
        #expect(replacement.replaces == replaces && replacement.winners.count == 1 && !harness.draw.sealingReplacement)
        #expect(harness.draw.board.last?.winners.contains(replacement.winners[0]) == true)
        let report = harness.verify()
        #expect(report.passed, "\(report.checks.filter { !$0.ok }.map(\.line))")
        // The restored draw, given the same value for the first R, draws from the first lock instead.
        let other = try again.finishSealed(randomness: Self.randomness, signature: Self.signature, relays: Self.relays,
                                           at: harness.now, nextSeed: Seed.random(using: &harness.random))
        #expect(other[1].kind == "round")
        // A replacement lock that names another void is refused by the verifier.
        var forged = harness.records.map(\.json)
        let at = forged.firstIndex { $0["kind"]?.stringValue == "beacon" && $0["replaces"] != nil }!
        var members = forged[at].objectValue!
        members["replaces"] = .object(["round": .int(2), "winner": .int(Int64(1_001)), "void": .string(voided[0].hash)])
        members["hash"] = nil
        members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
        forged[at] = .object(members)
        #expect(RoundVerifier.verify(records: forged).checks[at].problem == "beacon lock")
    }
}
