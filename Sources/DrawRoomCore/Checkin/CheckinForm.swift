import Foundation
import JSON

/// A phone's join request, normalised: the display name and the host's fields, trimmed,
/// NFC-normalised and checked against the settings. Pure: the room decides the rest.
struct CheckinForm: Sendable, Equatable {
    var name: String
    /// In the order of the settings' fields; only fields with a value.
    var fields: [(key: String, value: String)]

    static func == (a: CheckinForm, b: CheckinForm) -> Bool {
        a.name == b.name && a.fields.elementsEqual(b.fields) { $0.key == $1.key && $0.value == $1.value }
    }

    /// Why a form was refused: the protocol's code and, for a field, its key.
    struct Refusal: Error, Sendable, Equatable {
        var code: String
        var field: String?
    }

    /// A body's bytes a join may have (a name and eight 200-character fields fit many times over).
    static let maxBodyBytes = 8 * 1024

    /// `{"name":"Ann","fields":{"ticket":"A-17"},"code":"4821"}` → the form (and the presence code typed).
    static func parse(_ json: JSONValue, settings: CheckinSettings) -> Result<(form: CheckinForm, code: String?), Refusal> {
        guard json.objectValue != nil else { return .failure(Refusal(code: "bad_json")) }
        guard let rawName = json["name"]?.stringValue else { return .failure(Refusal(code: "bad_name")) }
        let name = clean(rawName)
        guard hasVisible(name), name.count <= CheckinSettings.maxNameLength, name.utf8.count <= 4 * CheckinSettings.maxNameLength,
              !hasControl(name) else { return .failure(Refusal(code: "bad_name")) }
        var code: String? = nil
        if let value = json["code"], !value.isNull {
            guard let text = value.stringValue, text.utf8.count <= 16 else { return .failure(Refusal(code: "bad_code")) }
            code = clean(text)
        }
        let given = json["fields"]
        if let given, !given.isNull, given.objectValue == nil { return .failure(Refusal(code: "bad_field")) }
        if let members = given?.objectValue {
            for key in members.keys where !settings.fields.contains(where: { $0.key == key }) {
                return .failure(Refusal(code: "bad_field", field: String(key.prefix(32))))
            }
        }
        var fields = [(key: String, value: String)]()
        for field in settings.fields {
            let raw = given?[field.key]
            var value = ""
            if let raw, !raw.isNull {
                // Strings only (docs/openapi.yaml): `{"ticket":17}` is refused, naming the field.
                guard let text = raw.stringValue else { return .failure(Refusal(code: "bad_field", field: field.key)) }
                value = clean(text)
            }
            guard value.count <= field.maxLength, value.utf8.count <= 4 * field.maxLength, !hasControl(value) else {
                return .failure(Refusal(code: "bad_field", field: field.key))
            }
            if value.isEmpty {
                if field.required { return .failure(Refusal(code: "missing_field", field: field.key)) }
                continue
            }
            fields.append((field.key, value))
        }
        return .success((CheckinForm(name: name, fields: fields), code))
    }

    /// Trimmed (white space, BOM, zero-width space) and NFC-normalised, so "é" typed either way is one name.
    static func clean(_ text: String) -> String {
        trim(text).precomposedStringWithCanonicalMapping
    }

    static func trim(_ text: String) -> String {
        let scalars = text.unicodeScalars
        func blank(_ s: Unicode.Scalar) -> Bool { s.properties.isWhitespace || s.value == 0xfeff || s.value == 0x200b }
        guard let first = scalars.firstIndex(where: { !blank($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !blank($0) })!
        return String(scalars[first...last])
    }

    /// True when some character would show: not white space, not a format or default-ignorable
    /// character (U+200D alone is no name), not a separator or a mark without a base.
    static func hasVisible(_ text: String) -> Bool {
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
    static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { s in
            s.value < 0x20 || (0x7f...0x9f).contains(s.value) || (0x202a...0x202e).contains(s.value)
                || (0x2066...0x2069).contains(s.value)
        }
    }

    /// The key a unique value is compared by: case-folded (so "a-17" and "A-17" are one ticket).
    static func uniqueKey(_ value: String) -> String {
        value.lowercased()
    }

    var fieldsJSON: JSONValue {
        var members = [String: JSONValue]()
        for field in fields { members[field.key] = .string(field.value) }
        return .object(members)
    }
}
