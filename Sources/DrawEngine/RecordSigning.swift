import Crypto
import JSON

/// A record's Ed25519 signature as stored beside it (outside its hash): the signing key's
/// fingerprint and the 64-byte signature in hex (docs/FAIRNESS.md §17).
public struct RecordSignature: Sendable, Equatable {
    public let key: String
    public let signature: String

    public init(key: String, signature: String) {
        self.key = key
        self.signature = signature
    }
}

/// A rotation on the record: the old key signs the new one (docs/FAIRNESS.md §17).
public struct KeyRotation: Sendable, Equatable {
    public let old: String
    public let new: String
    /// Unix milliseconds.
    public let at: Int64
    public let signature: String

    public init(old: String, new: String, at: Int64, signature: String) {
        self.old = old
        self.new = new
        self.at = at
        self.signature = signature
    }

    public var json: JSONValue {
        .object(["old": .string(old), "new": .string(new), "at": .int(at), "signature": .string(signature)])
    }

    public init?(json: JSONValue) {
        guard let old = json["old"]?.stringValue, let new = json["new"]?.stringValue, let at = json["at"]?.intValue,
              let signature = json["signature"]?.stringValue else { return nil }
        self.init(old: old, new: new, at: at, signature: signature)
    }

    /// `old` signs `new` (both public keys in hex) at `at`.
    public static func make(old: Ed25519PrivateKey, new: [UInt8], at: Int64) -> KeyRotation {
        let oldHex = Hex.encode(old.publicKey), newHex = Hex.encode(new)
        return KeyRotation(old: oldHex, new: newHex, at: at,
                           signature: Hex.encode(old.sign(RecordSigning.rotationMessage(old: oldHex, new: newHex, at: at))))
    }
}

/// What a server signs with, and the messages it signs (docs/FAIRNESS.md §17).
public struct RecordSigner: Sendable {
    public let key: Ed25519PrivateKey
    /// Earlier keys, each signing the next, the last signing `key` (oldest first).
    public let rotations: [KeyRotation]

    public init(key: Ed25519PrivateKey, rotations: [KeyRotation] = []) {
        self.key = key
        self.rotations = rotations
    }

    public var publicKeyHex: String { Hex.encode(key.publicKey) }
    public var fingerprint: String { RecordSigning.fingerprint(publicKey: key.publicKey) }

    /// The signature of record `hash` of draw `code`.
    public func sign(hash: String, code: String) -> RecordSignature {
        RecordSignature(key: fingerprint, signature: Hex.encode(key.sign(RecordSigning.recordMessage(code: code, hash: hash))))
    }

    /// The key as `GET /api/server/key` serves it and the export's `signatures` member opens.
    public var keyMembers: [String: JSONValue] {
        ["algorithm": .string(RecordSigning.algorithm), "publicKey": .string(publicKeyHex), "fingerprint": .string(fingerprint),
         "rotations": .array(rotations.map(\.json))]
    }

    /// The export's `signatures` member: the key, its rotations and each signed record's signature by index.
    public func exportMember(records: [DrawRecord]) -> JSONValue {
        var members = keyMembers
        var byIndex = [String: JSONValue]()
        for record in records {
            if let signature = record.signature {
                byIndex[String(record.index)] = .object(["key": .string(signature.key), "signature": .string(signature.signature)])
            }
        }
        members["records"] = .object(byIndex)
        return .object(members)
    }
}

public enum RecordSigning {
    public static let algorithm = "Ed25519"

    /// `tombola-record-v1:<code>:<hash>` in UTF-8: the draw's code is signed too, so a record cannot
    /// be shown as another draw's.
    public static func recordMessage(code: String, hash: String) -> [UInt8] {
        Array("tombola-record-v1:\(code):\(hash)".utf8)
    }

    public static func rotationMessage(old: String, new: String, at: Int64) -> [UInt8] {
        Array("tombola-key-rotation-v1:\(old):\(new):\(at)".utf8)
    }

    /// SHA-256 of the 32-byte public key, in hex.
    public static func fingerprint(publicKey: [UInt8]) -> String { Hashing.sha256Hex(publicKey) }

    /// The fingerprint in groups of four digits, as the banner and the certificate print it.
    public static func grouped(_ fingerprint: String) -> String {
        var out = ""
        for (offset, char) in fingerprint.enumerated() {
            if offset > 0, offset % 4 == 0 { out += " " }
            out.append(char)
        }
        return out
    }
}

/// The signatures of an export checked (docs/FAIRNESS.md §17): one line per finding.
public struct SignatureReport: Sendable {
    public var lines: [String] = []
    public var ok = true
    /// Records signed and records before the first signed one (written before signing).
    public var signed = 0
    public var unsigned = 0

    mutating func fail(_ line: String) {
        lines.append("FAIL: " + line)
        ok = false
    }
}

public enum SignatureCheck {
    /// Checks the `signatures` member of `export` against its records. `expectedKey` (a public key
    /// or its fingerprint, in hex) is the key the reader trusts (the server's banner, its
    /// `GET /api/server/key`, the certificate): the member's key must be it. An export without the
    /// member is unsigned (written before signing), which is reported and not a failure.
    public static func check(export: JSONValue, expectedKey: String? = nil) -> SignatureReport {
        var report = SignatureReport()
        let records = export["records"]?.arrayValue ?? []
        let code = export["code"]?.stringValue ?? ""
        guard let member = export["signatures"] else {
            report.unsigned = records.count
            report.lines.append("signatures: none (\(records.count) unsigned records, written before signing)")
            if expectedKey != nil { report.fail("a key was expected but the export has no signatures") }
            return report
        }
        guard member["algorithm"]?.stringValue == RecordSigning.algorithm, let publicHex = member["publicKey"]?.stringValue,
              Hex.isLowercase(publicHex, byteCount: 32), let publicKey = Hex.decode(publicHex),
              member["fingerprint"]?.stringValue == RecordSigning.fingerprint(publicKey: publicKey),
              let signatures = member["records"]?.objectValue else {
            report.fail("signatures: malformed member (algorithm, publicKey, fingerprint or records)")
            return report
        }
        let fingerprint = RecordSigning.fingerprint(publicKey: publicKey)
        report.lines.append("signing key \(fingerprint) (Ed25519 \(publicHex))")
        if let expectedKey, expectedKey.lowercased() != publicHex, expectedKey.lowercased() != fingerprint {
            report.fail("the export is signed by key \(fingerprint), not by the key given (\(expectedKey))")
        }
        // The keys a record may be signed by: the current one and, walking its rotations back,
        // every older key that signed its successor.
        var keys = [fingerprint: publicKey]
        var successor = publicHex
        for (position, item) in (member["rotations"]?.arrayValue ?? []).enumerated().reversed() {
            guard let rotation = KeyRotation(json: item), rotation.new == successor, Hex.isLowercase(rotation.old, byteCount: 32),
                  let old = Hex.decode(rotation.old), let signature = Hex.decode(rotation.signature),
                  Ed25519.verify(publicKey: old, message: RecordSigning.rotationMessage(old: rotation.old, new: rotation.new, at: rotation.at),
                                 signature: signature) else {
                report.fail("rotation \(position) is not signed by its old key for the key after it")
                return report
            }
            keys[RecordSigning.fingerprint(publicKey: old)] = old
            report.lines.append("rotation \(position): key \(RecordSigning.fingerprint(publicKey: old)) handed over to \(successor.prefix(16))… at \(rotation.at)")
            successor = rotation.old
        }
        var seen = Set<String>()
        var signedBefore = false
        for record in records {
            guard let index = record["index"]?.intValue, let hash = record["hash"]?.stringValue else { continue }
            let name = String(index)
            seen.insert(name)
            guard let entry = signatures[name] else {
                if signedBefore {
                    report.fail("#\(index) is unsigned after a signed record (a signature was removed)")
                } else {
                    report.unsigned += 1
                }
                continue
            }
            signedBefore = true
            guard let by = entry["key"]?.stringValue, let key = keys[by] else {
                report.fail("#\(index) is signed by a key that is neither the export's nor handed over to it by a rotation")
                continue
            }
            guard let signature = entry["signature"]?.stringValue.flatMap(Hex.decode),
                  Ed25519.verify(publicKey: key, message: RecordSigning.recordMessage(code: code, hash: hash), signature: signature) else {
                report.fail("#\(index) signature does not match its hash \(hash.prefix(16))… under key \(by.prefix(16))…")
                continue
            }
            report.signed += 1
        }
        for name in signatures.keys where !seen.contains(name) {
            report.fail("a signature for record \(name), which the export does not hold")
        }
        if report.ok {
            report.lines.append("signatures: \(report.signed) records signed" + (report.unsigned > 0 ? ", \(report.unsigned) unsigned (written before signing)" : "") + ": OK")
        }
        return report
    }
}
