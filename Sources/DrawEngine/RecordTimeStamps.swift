import Crypto
import JSON

/// An RFC 3161 time-stamp of a record's hash from an outside time-stamping authority (issue #47,
/// docs/FAIRNESS.md §18), stored beside the record: the TSA's URL and its DER answer.
public struct RecordTimeStamp: Sendable, Equatable {
    public let tsa: String
    public let response: [UInt8]

    public init(tsa: String, response: [UInt8]) {
        self.tsa = tsa
        self.response = response
    }
}

public enum RecordTimeStamps {
    /// The export's `timestamps` member: each stamped record's hash, TSA, the TSA's time and its
    /// DER answer in hex, by record index.
    public static func exportMember(records: [DrawRecord]) -> JSONValue? {
        var byIndex = [String: JSONValue]()
        for record in records {
            guard let stamp = record.timeStamp else { continue }
            byIndex[String(record.index)] = .object([
                "hash": .string(record.hash), "tsa": .string(stamp.tsa), "response": .string(Hex.encode(stamp.response)),
                "genTime": .string(TimeStamp.inspect(response: stamp.response)?.genTime ?? ""),
            ])
        }
        return byIndex.isEmpty ? nil : .object(byIndex)
    }
}

/// The time-stamps of an export checked (docs/FAIRNESS.md §18).
public enum TimeStampCheck {
    /// Each entry must stamp its record's hash (the record at that index, with that hash) and be
    /// a granted answer; with `caFile`, its signature must chain to that CA (what `openssl ts
    /// -verify` checks). No `timestamps` member: nothing to check.
    public static func check(export: JSONValue, caFile: String? = nil) -> (lines: [String], ok: Bool) {
        guard let member = export["timestamps"]?.objectValue else { return ([], true) }
        var hashes = [String: String]()
        for record in export["records"]?.arrayValue ?? [] {
            if let index = record["index"]?.intValue, let hash = record["hash"]?.stringValue { hashes[String(index)] = hash }
        }
        var lines = [String](), ok = true
        for name in member.keys.sorted(by: { (Int($0) ?? 0) < (Int($1) ?? 0) }) {
            let entry = member[name]!
            guard let hash = hashes[name], entry["hash"]?.stringValue == hash, let digest = Hex.decode(hash),
                  let response = entry["response"]?.stringValue.flatMap(Hex.decode),
                  let token = TimeStamp.inspect(response: response), token.digest == digest else {
                lines.append("#\(name) time-stamp: FAIL: not a granted time-stamp of that record's hash")
                ok = false
                continue
            }
            let tsa = entry["tsa"]?.stringValue ?? "?"
            if let caFile {
                guard TimeStamp.verify(response: response, digest: digest, caFile: caFile) else {
                    lines.append("#\(name) time-stamp by \(tsa): FAIL: its signature does not chain to \(caFile)")
                    ok = false
                    continue
                }
                lines.append("#\(name) time-stamp by \(tsa) at \(token.genTime): OK (signature checked)")
            } else {
                lines.append("#\(name) time-stamp by \(tsa) at \(token.genTime): OK (the hash; check the TSA's signature with --tsa-ca or openssl ts -verify)")
            }
        }
        return (lines, ok)
    }
}
