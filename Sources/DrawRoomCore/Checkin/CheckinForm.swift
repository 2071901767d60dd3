import JSON

/// A phone's join request, normalised: the display name and the host's fields, trimmed,
/// NFC-normalised and checked against the settings. Pure: the room decides the rest.
public struct CheckinForm: Sendable, Equatable {
    public var name: String
    /// In the order of the settings' fields; only fields with a value.
    public var fields: [(key: String, value: String)]

    public init(name: String, fields: [(key: String, value: String)]) {
        self.name = name
        self.fields = fields
    }

    public static func == (a: CheckinForm, b: CheckinForm) -> Bool {
        a.name == b.name && a.fields.elementsEqual(b.fields) { $0.key == $1.key && $0.value == $1.value }
    }

    /// Why a form was refused: the protocol's code and, for a field, its key.
    public struct Refusal: Error, Sendable, Equatable {
        public var code: String
        public var field: String?

        public init(code: String, field: String? = nil) {
            self.code = code
            self.field = field
        }
    }

    /// A body's bytes a join may have (a name and eight 200-character fields fit many times over).
    public static let maxBodyBytes = 8 * 1024

    public static func trim(_ text: String) -> String {
        let scalars = text.unicodeScalars
        func blank(_ s: Unicode.Scalar) -> Bool { s.properties.isWhitespace || s.value == 0xfeff || s.value == 0x200b }
        guard let first = scalars.firstIndex(where: { !blank($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !blank($0) })!
        return String(scalars[first...last])
    }

    /// True when some character would show: not white space, not a format or default-ignorable
    /// character (U+200D alone is no name), not a separator or a mark without a base.
    public static func hasVisible(_ text: String) -> Bool {
        text.unicodeScalars.contains { s in
            let properties = s.properties
            switch properties.generalCategory {
            case .format, .control, .spaceSeparator, .lineSeparator, .paragraphSeparator, .nonspacingMark, .enclosingMark,
                 .unassigned, .surrogate: return false
            default: return !properties.isWhitespace && !properties.isDefaultIgnorableCodePoint
            }
        }
    }

    /// C0/C1 controls, and bidirectional overrides that could disguise a name on the screen.
    public static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { s in
            s.value < 0x20 || (0x7f...0x9f).contains(s.value) || (0x202a...0x202e).contains(s.value)
                || (0x2066...0x2069).contains(s.value)
        }
    }

    /// The key a unique value is compared by: case-folded (so "a-17" and "A-17" are one ticket).
    public static func uniqueKey(_ value: String) -> String {
        value.lowercased()
    }

    public var fieldsJSON: JSONValue {
        var members = [String: JSONValue]()
        for field in fields { members[field.key] = .string(field.value) }
        return .object(members)
    }
}
