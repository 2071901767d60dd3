import JSON

/// `tombola verify` on a private draw's *host* export (docs/FAIRNESS.md §22): its `private` member
/// lists each entrant's public id with the name and salt behind it. Each must open its id
/// (`"#" + hex(SHA256(salt || name))`) and stand at its position in a list the chain holds; then
/// the winners are named. A public export has no `private` member: nothing to do.
public enum PrivateRosterCheck {
    public static func check(export: JSONValue) -> (ok: Bool, lines: [String]) {
        guard let roster = export["private"]?["entrants"]?.arrayValue else { return (true, []) }
        let records = export["records"]?.arrayValue ?? []
        var lists = [[String]]()
        for record in records where record["kind"]?.stringValue == "entrants" {
            lists.append((record["entrants"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
        var names = [String: String]()
        var bad = [String]()
        for row in roster {
            guard let id = row["id"]?.stringValue, let name = row["name"]?.stringValue, let saltHex = row["salt"]?.stringValue,
                  let salt = Hex.decode(saltHex), salt.count == 32, let position = row["position"]?.intValue.flatMap({ Int(exactly: $0) }) else {
                bad.append("a malformed entry")
                continue
            }
            guard PrivateEntries.publicID(salt: salt, name: name) == id else {
                bad.append("\(JSONValue.string(name).canonicalString) does not open \(id)")
                continue
            }
            guard lists.contains(where: { $0.indices.contains(position) && $0[position] == id }) else {
                bad.append("\(id) is not at position \(position) of a list in the chain")
                continue
            }
            names[id] = name
        }
        var lines = ["private: \(roster.count) names" + (bad.isEmpty ? " open their public ids: OK" : ": FAIL: " + bad.prefix(3).joined(separator: "; "))]
        for record in records where record["kind"]?.stringValue == "round" {
            let winners = (record["winners"]?.arrayValue ?? []).map { value -> String in
                let text = value.stringValue ?? value.canonicalString
                return names[text].map { JSONValue.string($0).canonicalString } ?? text
            }
            lines.append("#\(record["index"]?.intValue ?? -1) round \(record["round"]?.intValue ?? -1) winners: " + winners.joined(separator: ", "))
        }
        return (bad.isEmpty, lines)
    }
}

extension PrivateEntries {
    /// The public id `salt` and `name` open.
    public static func publicID(salt: [UInt8], name: String) -> String { prefix + commitment(salt: salt, name: name) }
}
