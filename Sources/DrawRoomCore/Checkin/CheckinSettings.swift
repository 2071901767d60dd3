import JSON

/// A field the host asks entrants for beside their name (a ticket number, an employee id).
struct CheckinField: Sendable, Equatable {
    /// `[a-z0-9_-]`, 1–32 characters: the key in an entry's `fields`.
    var key: String
    /// What the form shows (1–60 characters).
    var label: String
    var required: Bool
    /// Two entries may not hold the same value (after trimming and NFC, compared case-insensitively).
    var unique: Bool
    /// Characters a value may have, 1…200.
    var maxLength: Int

    var json: JSONValue {
        .object(["key": .string(key), "label": .string(label), "required": .bool(required), "unique": .bool(unique),
                 "maxLength": .int(Int64(maxLength))])
    }
}

/// A draw's check-in settings (`POST /api/draws/<code>/entries/open`, docs/PROTOCOL.md "Check-in").
struct CheckinSettings: Sendable, Equatable {
    var open = false
    var fields: [CheckinField] = []
    /// Entrants must type the code the screen shows (it changes every 30 s).
    var presence = false
    /// Whether pages other than the host's may show entrants' names (else only public ids).
    var publicNames = false

    static let maxFields = 8
    static let maxLabelLength = 60
    static let maxValueLength = 200
    /// Characters a display name may have.
    static let maxNameLength = 60

    /// The settings in a host's request body; missing keys keep `base`'s values.
    static func parse(_ json: JSONValue, base: CheckinSettings) -> CheckinSettings? {
        guard json.objectValue != nil else { return nil }
        var settings = base
        for key in ["presence", "publicNames"] {
            guard let value = json[key], !value.isNull else { continue }
            guard case .bool(let flag) = value else { return nil }
            if key == "presence" { settings.presence = flag } else { settings.publicNames = flag }
        }
        if let value = json["fields"], !value.isNull {
            guard let items = value.arrayValue, items.count <= maxFields else { return nil }
            var fields = [CheckinField]()
            for item in items {
                guard let key = item["key"]?.stringValue, (1...32).contains(key.utf8.count),
                      key.utf8.allSatisfy({ (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5f || $0 == 0x2d }),
                      !fields.contains(where: { $0.key == key }) else { return nil }
                let label = CheckinForm.clean(item["label"]?.stringValue ?? key)
                guard (1...maxLabelLength).contains(label.count), !CheckinForm.hasControl(label) else { return nil }
                func flag(_ name: String) -> Bool? {
                    guard let value = item[name], !value.isNull else { return false }
                    if case .bool(let b) = value { return b }
                    return nil
                }
                guard let required = flag("required"), let unique = flag("unique") else { return nil }
                var maxLength = 64
                if let value = item["maxLength"], !value.isNull {
                    guard let n = value.intValue, (1...Int64(maxValueLength)).contains(n) else { return nil }
                    maxLength = Int(n)
                }
                fields.append(CheckinField(key: key, label: label, required: required, unique: unique, maxLength: maxLength))
            }
            settings.fields = fields
        }
        return settings
    }

    /// As stored (and as the public summary carries it).
    var json: JSONValue {
        .object(["open": .bool(open), "fields": .array(fields.map(\.json)), "presence": .bool(presence),
                 "publicNames": .bool(publicNames)])
    }

    /// Reads stored settings back; nil when unreadable.
    init?(stored text: String) {
        guard let json = try? JSONValue.parse(text), let settings = Self.parse(json, base: CheckinSettings()) else { return nil }
        self = settings
        if case .bool(let open)? = json["open"] { self.open = open }
    }

    init() {}
}
