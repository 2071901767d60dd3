import Crypto
import JSON
import Testing
@testable import DrawEngine

/// Observers' sign-offs (issue #41, docs/FAIRNESS.md §20): records in the chain, four eyes at
/// Start, an observer's own Ed25519 signature, and the verifier's checks.
@Suite struct SignoffTests {
    let observerKey = Ed25519PrivateKey(seed: [UInt8](repeating: 7, count: 32))!

    func signed(_ statement: Signoff.Statement, round: Int, draw: Draw, key: Ed25519PrivateKey) -> Draw.SignoffRequest {
        let poolHash = statement == .lock ? draw.commit?.poolHash : nil
        let message = Signoff.message(statement: statement, round: round, target: draw.lastHash, poolHash: poolHash)
        return Draw.SignoffRequest(statement: statement, round: round, target: draw.lastHash, publicKey: Hex.encode(key.publicKey),
                                   signature: Hex.encode(key.sign(message)))
    }

    @Test func fourEyesRefusesStartUntilAnObserverSignsTheLockAsItStands() throws {
        var config = DrawConfig(pool: .range(from: 1, to: 50))
        config.foureyes = true
        var harness = try Harness(config, seed: 41)
        let before = Snapshot(harness.draw)
        #expect(throws: DrawError.signoffRequired) { try harness.draw.start(contributions: [], at: harness.tick()) }
        #expect(Snapshot(harness.draw) == before)
        // A lock sign-off names the next round only; a result needs a drawn round.
        #expect(throws: DrawError.badSignoffRound) {
            try harness.draw.signoff(.init(statement: .lock, round: 2), observer: "Ann", observerId: "op1", at: harness.tick())
        }
        #expect(throws: DrawError.badSignoffRound) {
            try harness.draw.signoff(.init(statement: .result, round: 1), observer: "Ann", observerId: "op1", at: harness.tick())
        }
        let record = try harness.draw.signoff(.init(statement: .lock, round: 1), observer: "Ann", observerId: "op1", at: harness.tick())
        harness.records.append(record)
        #expect(record.kind == "signoff" && record.json["target"] == .string(harness.records[0].hash))
        #expect(record.json["poolHash"] == .string(harness.draw.commit!.poolHash) && record.json["publicKey"] == .null)
        #expect(try DrawRecord(json: record.json) == record)
        #expect(harness.draw.lockSignedOff)
        // The same again is refused; a new pool (another range) needs a new sign-off.
        #expect(throws: DrawError.alreadySigned) {
            try harness.draw.signoff(.init(statement: .lock, round: 1), observer: "Ann", observerId: "op1", at: harness.tick())
        }
        var other = config
        other.pool = .range(from: 1, to: 60)
        try harness.draw.configure(other)
        #expect(!harness.draw.lockSignedOff)
        #expect(throws: DrawError.signoffRequired) { try harness.draw.start(contributions: [], at: harness.tick()) }
        try harness.draw.configure(config)
        #expect(harness.draw.lockSignedOff)
        try harness.round()
        // Round 2 needs its own sign-off; the result of round 1 may be signed now, once per observer.
        #expect(!harness.draw.lockSignedOff)
        harness.records.append(try harness.draw.signoff(.init(statement: .result, round: 1), observer: "Ann", observerId: "op1",
                                                        at: harness.tick()))
        #expect(throws: DrawError.alreadySigned) {
            try harness.draw.signoff(.init(statement: .result, round: 1), observer: "Ann", observerId: "op1", at: harness.tick())
        }
        harness.records.append(try harness.draw.signoff(.init(statement: .result, round: 1), observer: "Bo", observerId: "op2",
                                                        at: harness.tick()))
        let report = harness.verify()
        #expect(report.passed)
        let notes = report.checks.flatMap(\.notes)
        #expect(notes.contains("round 1: lock witnessed by Ann, no key of their own"))
        #expect(notes.filter { $0.hasPrefix("round 1: result witnessed by") }.count == 2)
        // Restored from its records, the draw knows the session's sign-offs.
        let restored = try Draw(config: harness.draw.config, restoring: harness.records)
        #expect(restored.signoffs.map(\.observer) == ["Ann", "Ann", "Bo"])
        // Clear ends the session: its sign-offs go with it.
        harness.records.append(try harness.draw.clear(at: harness.tick()))
        #expect(harness.draw.signoffs.isEmpty)
    }

    @Test func anObserversOwnKeySignsTheHeadAndAForgeryChangesNothing() throws {
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 50)), seed: 42)
        let request = signed(.lock, round: 1, draw: harness.draw, key: observerKey)
        // Another key's signature, a signature of another head, or a key without a target: refused.
        var forged = request
        forged.publicKey = Hex.encode(Ed25519PrivateKey(seed: [UInt8](repeating: 8, count: 32))!.publicKey)
        let before = Snapshot(harness.draw)
        #expect(throws: DrawError.badSignoff) { try harness.draw.signoff(forged, observer: "Ann", observerId: "op1", at: harness.tick()) }
        var stale = request
        stale.target = String(repeating: "a", count: 64)
        #expect(throws: DrawError.signoffStale) { try harness.draw.signoff(stale, observer: "Ann", observerId: "op1", at: harness.tick()) }
        var untargeted = request
        untargeted.target = nil
        #expect(throws: DrawError.badSignoff) {
            try harness.draw.signoff(untargeted, observer: "Ann", observerId: "op1", at: harness.tick())
        }
        var mangled = request
        mangled.signature = "zz"
        #expect(throws: DrawError.badSignoff) { try harness.draw.signoff(mangled, observer: "Ann", observerId: "op1", at: harness.tick()) }
        #expect(Snapshot(harness.draw) == before && harness.draw.signoffs.isEmpty)
        let record = try harness.draw.signoff(request, observer: "Ann", observerId: "op1", at: harness.tick())
        harness.records.append(record)
        #expect(record.json["publicKey"] == .string(Hex.encode(observerKey.publicKey)))
        try harness.round()
        harness.records.append(try harness.draw.signoff(signed(.result, round: 1, draw: harness.draw, key: observerKey),
                                                        observer: "Ann", observerId: "op1", at: harness.tick()))
        let report = harness.verify()
        #expect(report.passed)
        let fingerprint = RecordSigning.fingerprint(publicKey: observerKey.publicKey).prefix(16)
        #expect(report.checks.flatMap(\.notes).contains("round 1: result witnessed by Ann, own key \(fingerprint)…"))

        // The verifier: a sign-off whose signature was altered (re-hashed, re-chained) fails there.
        var json = harness.records.map(\.json)
        let at = harness.records.firstIndex { $0.kind == "signoff" }!
        json[at] = Self.rehashed(json[at], ["signature": .string(String(repeating: "0", count: 128))])
        json = Self.rechained(json, from: at)
        #expect(RoundVerifier.verify(records: json).checks[at].problem == "observer's signature")
        // A target that is not the chain's record at its index fails too (the result's sign-off pointed at the first record).
        let result = harness.records.lastIndex { $0.kind == "signoff" }!
        json = Self.rechained(harness.records.map(\.json).enumerated().map { index, record in
            index == result ? Self.rehashed(record, ["targetIndex": .int(0)]) : record
        }, from: result)
        #expect(RoundVerifier.verify(records: json).checks[result].problem == "sign-off of a record not in the chain")
    }

    static func rehashed(_ record: JSONValue, _ changes: [String: JSONValue]) -> JSONValue {
        guard case .object(var members) = record else { return record }
        for (key, value) in changes { members[key] = value }
        members["hash"] = nil
        members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
        return .object(members)
    }

    static func rechained(_ records: [JSONValue], from start: Int) -> [JSONValue] {
        var out = records
        for index in (start + 1)..<out.count {
            guard case .object(var members) = out[index] else { continue }
            members["prev"] = out[index - 1]["hash"]!
            members["hash"] = nil
            members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
            out[index] = .object(members)
        }
        return out
    }
}
