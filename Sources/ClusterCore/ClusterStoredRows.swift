import DrawEngine
import DrawRoomCore
import JSON

/// What the cluster keeps in Redis besides the chain, as text: check-in entry rows (and the book
/// read back from them) and a draw's winners. The one codec of each; `ClusterDrawNode` stores
/// and reads the text.
public enum ClusterStoredRows {
    /// An entry as `{d:CODE}:entrants` holds it (canonical JSON, the device hash included).
    public static func row(_ entry: CheckinEntry) -> String {
        JSONValue.object([
            "id": .string(entry.id), "seq": .int(Int64(entry.seq)), "name": entry.name.map { .string($0) } ?? .null,
            "fields": .object(entry.fields.mapValues { .string($0) }), "device": entry.device.map { .string($0) } ?? .null,
            "joinedAt": .int(entry.joinedAt), "removed": entry.removedReason.map { .string($0) } ?? .null,
        ]).canonicalString
    }

    public static func entry(row text: String) -> CheckinEntry? {
        guard let json = try? JSONValue.parse(text), let id = json["id"]?.stringValue, let seq = json["seq"]?.intValue,
              let joinedAt = json["joinedAt"]?.intValue, case .object(let members)? = json["fields"] else { return nil }
        var fields = [String: String]()
        for (key, value) in members {
            guard let string = value.stringValue else { return nil }
            fields[key] = string
        }
        return CheckinEntry(id: id, seq: Int(seq), name: json["name"]?.stringValue, fields: fields, device: json["device"]?.stringValue,
                            joinedAt: joinedAt, removedReason: json["removed"]?.stringValue)
    }

    /// A draw's winners as `{d:CODE}:winners` holds them, for draws that exclude them.
    public static func encode(_ winners: PastWinners) -> String {
        JSONValue.object([
            "code": .string(winners.code), "head": .string(winners.head), "records": .int(Int64(winners.records)),
            "names": .array(winners.names.sorted().map { .string($0) }), "ids": .array(winners.ids.sorted().map { .string($0) }),
        ]).canonicalString
    }

    public static func winners(_ text: String, code: String) -> PastWinners? {
        guard let json = try? JSONValue.parse(text), json["code"]?.stringValue == code, let head = json["head"]?.stringValue,
              let records = json["records"]?.intValue, let names = json["names"]?.arrayValue, let ids = json["ids"]?.arrayValue else { return nil }
        return PastWinners(code: code, head: head, records: Int(records), names: Set(names.compactMap(\.stringValue)),
                           ids: Set(ids.compactMap(\.stringValue)))
    }
}
