import DrawEngine
// scripts/fuzz compiles this file into one module with the check-in core (no DrawRoomCore there).
#if canImport(DrawRoomCore)
import DrawRoomCore
#endif
import Foundation
import JSON

// What check-in reads from people (a phone's form, a host's settings and search, a removal's
// reason), trimmed and NFC-normalised with Foundation, which the room's core does without: the
// core receives the text already clean.

extension CheckinForm {
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

}

extension CheckinSettings {
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

    /// Reads stored settings back; nil when unreadable.
    init?(stored text: String) {
        guard let json = try? JSONValue.parse(text), let settings = Self.parse(json, base: CheckinSettings()) else { return nil }
        self = settings
        if case .bool(let open)? = json["open"] { self.open = open }
    }
}
