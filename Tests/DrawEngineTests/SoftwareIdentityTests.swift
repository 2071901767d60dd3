import Testing
import JSON
@testable import DrawEngine

/// Issue #47: each `commit` record names the program that wrote it, inside the record's hash;
/// other kinds do not; a record read back keeps it; a malformed one is refused.
@Suite struct SoftwareIdentityTests {
    static let software = SoftwareIdentity(version: "1.0.0", commit: "0123456789ab", sha256: String(repeating: "ab", count: 32))

    @Test func commitRecordsNameTheProgramAndTheVerifierSaysSoOnce() throws {
        var draw = try Draw()
        draw.software = Self.software
        var random = SplitMix64(state: 7)
        var records = [try draw.prepareCommitment(seed: .random(using: &random), at: 1)]
        records += try draw.start(contributions: [], at: 2)
        records += try draw.stop(at: 3, nextSeed: .random(using: &random))
        #expect(records.map(\.kind) == ["commit", "lock", "round", "commit"])
        for record in records {
            #expect(record.software == (record.kind == "commit" ? Self.software : nil), "\(record.kind)")
            #expect(record.json["software"] == (record.kind == "commit" ? Self.software.json : nil))
            #expect(try DrawRecord(text: record.canonicalJSON) == record)
        }
        let report = RoundVerifier.verify(records: records.map(\.json))
        #expect(report.passed)
        let said = report.checks.flatMap(\.notes).filter { $0.hasPrefix("written by") }
        #expect(said == ["written by tombola 1.0.0 (commit 0123456789ab, binary sha256 abababababababab…)"])
    }

    /// A round resumed after a restart on another binary (its commitment taken up, no new commit):
    /// the next commit the new program writes says `restart`, so the chain verifies; the same change
    /// at a `next` commit is refused ("program changed without a restart").
    @Test func theProgramChangesOnlyAtARestartsCommit() throws {
        var draw = try Draw()
        draw.software = Self.software
        var random = SplitMix64(state: 9)
        let first = Seed.random(using: &random)
        var records = [try draw.prepareCommitment(seed: first, at: 1)]
        var resumed = try Draw(config: .standard, restoring: records)
        resumed.software = SoftwareIdentity(version: "1.0.1", commit: "fedcba987654", sha256: String(repeating: "cd", count: 32))
        try resumed.resumeCommitment(first)
        records += try resumed.start(contributions: [], at: 2)
        records += try resumed.stop(at: 3, nextSeed: .random(using: &random))
        guard case .commit(_, let reason) = records.last!.body else { Issue.record("no commit"); return }
        #expect(reason == .restart && records.last!.software == resumed.software)
        #expect(RoundVerifier.verify(records: records.map(\.json)).passed)
        // The same change claimed at a `next` commit (re-hashed): refused.
        var members = records.last!.json.objectValue!
        members["reason"] = .string("next")
        members["hash"] = nil
        members["hash"] = .string(Hashing.sha256Hex(JSONValue.object(members).canonicalBytes))
        var forged = records.map(\.json)
        forged[forged.count - 1] = .object(members)
        #expect(RoundVerifier.verify(records: forged).checks.last?.problem == "program changed without a restart")
    }

    @Test func aMalformedSoftwareFieldIsRefused() throws {
        var draw = try Draw()
        draw.software = Self.software
        var random = SplitMix64(state: 8)
        let record = try draw.prepareCommitment(seed: .random(using: &random), at: 1)
        guard case .object(var members) = record.json else { throw RecordError(reason: "not an object") }
        members["software"] = .object(["version": .string("1.0.0")])
        #expect(throws: RecordError.self) { try DrawRecord(json: .object(members)) }
    }
}
