import Crypto
import JSON
import Testing
@testable import DrawEngine

/// Issue #47 item 1 (docs/FAIRNESS.md §17): an export's `signatures` member is checked against
/// its records: every signature verifies under the export's key (or one a rotation hands over
/// from); forgeries are refused; an export without the member is reported unsigned and passes.
@Suite struct RecordSigningTests {
    static func signedExport(signer: RecordSigner, code: String = "SIGNED", unsignedPrefix: Int = 0) throws -> JSONValue {
        var records = try JSONValue.parse(SampleDraw.export()).objectValue!["records"]!.arrayValue!.map { try DrawRecord(json: $0) }
        for index in records.indices where index >= unsignedPrefix {
            records[index].signature = signer.sign(hash: records[index].hash, code: code)
        }
        return try JSONValue.parse(DrawExport.json(code: code, records: records, extra: ["signatures": signer.exportMember(records: records)]))
    }

    static func replacing(_ export: JSONValue, _ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
        var members = export.objectValue!
        var signatures = members["signatures"]!.objectValue!
        change(&signatures)
        members["signatures"] = .object(signatures)
        return .object(members)
    }

    @Test func aSignedExportVerifiesUnderItsKeyAndNoOther() throws {
        let signer = RecordSigner(key: .generate())
        let export = try Self.signedExport(signer: signer)
        let report = SignatureCheck.check(export: export)
        let count = export["records"]!.arrayValue!.count
        #expect(report.ok && report.signed == count && report.unsigned == 0, "\(report.lines)")
        #expect(SignatureCheck.check(export: export, expectedKey: signer.fingerprint).ok)
        #expect(SignatureCheck.check(export: export, expectedKey: signer.publicKeyHex).ok)
        #expect(!SignatureCheck.check(export: export, expectedKey: RecordSigner(key: .generate()).fingerprint).ok)
    }

    @Test func anUnsignedExportAndAnUnsignedPrefixPassReportedAsUnsigned() throws {
        let unsigned = try JSONValue.parse(SampleDraw.export())
        let report = SignatureCheck.check(export: unsigned)
        #expect(report.ok && report.signed == 0 && report.unsigned > 0)
        #expect(report.lines.first?.contains("unsigned") == true)
        #expect(!SignatureCheck.check(export: unsigned, expectedKey: "ab").ok)
        let prefix = SignatureCheck.check(export: try Self.signedExport(signer: RecordSigner(key: .generate()), unsignedPrefix: 3))
        #expect(prefix.ok && prefix.unsigned == 3, "\(prefix.lines)")
    }

    @Test func forgeriesAreRefused() throws {
        let signer = RecordSigner(key: .generate())
        let other = RecordSigner(key: .generate())
        let export = try Self.signedExport(signer: signer)
        let records = export["records"]!.arrayValue!
        // A flipped bit of one signature.
        let flipped = Self.replacing(export) { s in
            var byIndex = s["records"]!.objectValue!
            let hex = byIndex["2"]!["signature"]!.stringValue!
            let bytes = Hex.decode(hex)!.enumerated().map { $0.offset == 9 ? $0.element ^ 4 : $0.element }
            byIndex["2"] = .object(["key": .string(signer.fingerprint), "signature": .string(Hex.encode(bytes))])
            s["records"] = .object(byIndex)
        }
        #expect(!SignatureCheck.check(export: flipped).ok)
        // Another record's signature.
        let moved = Self.replacing(export) { s in
            var byIndex = s["records"]!.objectValue!
            byIndex["2"] = byIndex["3"]
            s["records"] = .object(byIndex)
        }
        #expect(!SignatureCheck.check(export: moved).ok)
        // A signature by another key (named as that key, or as the server's).
        for name in [other.fingerprint, signer.fingerprint] {
            let foreign = Self.replacing(export) { s in
                var byIndex = s["records"]!.objectValue!
                let hash = records[4]["hash"]!.stringValue!
                byIndex["4"] = .object(["key": .string(name), "signature": .string(other.sign(hash: hash, code: "SIGNED").signature)])
                s["records"] = .object(byIndex)
            }
            #expect(!SignatureCheck.check(export: foreign).ok)
        }
        // The key swapped without a rotation: everything re-signed by another key is consistent,
        // and refused against the key the reader holds.
        let swapped = try Self.signedExport(signer: other)
        #expect(SignatureCheck.check(export: swapped).ok)
        #expect(!SignatureCheck.check(export: swapped, expectedKey: signer.fingerprint).ok)
        // A signature removed after a signed record, or one for a record the export does not hold.
        let removed = Self.replacing(export) { s in
            var byIndex = s["records"]!.objectValue!
            byIndex["5"] = nil
            s["records"] = .object(byIndex)
        }
        #expect(!SignatureCheck.check(export: removed).ok)
        let extra = Self.replacing(export) { s in
            var byIndex = s["records"]!.objectValue!
            byIndex["999"] = byIndex["1"]
            s["records"] = .object(byIndex)
        }
        #expect(!SignatureCheck.check(export: extra).ok)
        // Another draw's code: the code is signed.
        var renamed = export.objectValue!
        renamed["code"] = .string("OTHER")
        #expect(!SignatureCheck.check(export: .object(renamed)).ok)
    }

    @Test func aRotationSignedByTheOldKeyHandsOverAndAForgedOneIsRefused() throws {
        let old = Ed25519PrivateKey.generate()
        let new = Ed25519PrivateKey.generate()
        let rotation = KeyRotation.make(old: old, new: new.publicKey, at: 1_764_455_400_000)
        let before = RecordSigner(key: old)
        let after = RecordSigner(key: new, rotations: [rotation])
        // The first records signed by the old key, the rest by the new one.
        var records = try JSONValue.parse(SampleDraw.export()).objectValue!["records"]!.arrayValue!.map { try DrawRecord(json: $0) }
        for index in records.indices {
            records[index].signature = (index < 4 ? before : after).sign(hash: records[index].hash, code: "SIGNED")
        }
        let export = try JSONValue.parse(DrawExport.json(code: "SIGNED", records: records,
                                                         extra: ["signatures": after.exportMember(records: records)]))
        let report = SignatureCheck.check(export: export, expectedKey: after.fingerprint)
        #expect(report.ok && report.signed == records.count, "\(report.lines)")
        // Without the rotation, the old key's signatures are another key's.
        #expect(!SignatureCheck.check(export: Self.replacing(export) { $0["rotations"] = .array([]) }).ok)
        // A rotation signed by anyone but the old key.
        let forged = KeyRotation(old: rotation.old, new: rotation.new, at: rotation.at,
                                 signature: KeyRotation.make(old: .generate(), new: new.publicKey, at: rotation.at).signature)
        #expect(!SignatureCheck.check(export: Self.replacing(export) { $0["rotations"] = .array([forged.json]) }).ok)
    }
}
