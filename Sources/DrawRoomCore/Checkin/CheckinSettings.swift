import JSON

/// A field the host asks entrants for beside their name (a ticket number, an employee id).
public struct CheckinField: Sendable, Equatable {
    /// `[a-z0-9_-]`, 1–32 characters: the key in an entry's `fields`.
    public var key: String
    /// What the form shows (1–60 characters).
    public var label: String
    public var required: Bool
    /// Two entries may not hold the same value (after trimming and NFC, compared case-insensitively).
    public var unique: Bool
    /// Characters a value may have, 1…200.
    public var maxLength: Int

    public init(key: String, label: String, required: Bool, unique: Bool, maxLength: Int) {
        self.key = key
        self.label = label
        self.required = required
        self.unique = unique
        self.maxLength = maxLength
    }

    public var json: JSONValue {
        .object(["key": .string(key), "label": .string(label), "required": .bool(required), "unique": .bool(unique),
                 "maxLength": .int(Int64(maxLength))])
    }
}

/// A draw's check-in settings (`POST /api/draws/<code>/entries/open`, docs/PROTOCOL.md "Check-in").
public struct CheckinSettings: Sendable, Equatable {
    public var open = false
    public var fields: [CheckinField] = []
    /// Entrants must type the code the screen shows (it changes every 30 s).
    public var presence = false
    /// Whether pages other than the host's may show entrants' names (else only public ids).
    public var publicNames = false

    public static let maxFields = 8
    public static let maxLabelLength = 60
    public static let maxValueLength = 200
    /// Characters a display name may have.
    public static let maxNameLength = 60

    /// As stored (and as the public summary carries it).
    public var json: JSONValue {
        .object(["open": .bool(open), "fields": .array(fields.map(\.json)), "presence": .bool(presence),
                 "publicNames": .bool(publicNames)])
    }

    public init() {}
}
