import Foundation

/// A JSON value with ordered object keys, for the one-line results (not the `JSON` module's
/// `JSONValue`, whose objects are sorted: a report line keeps its fields in the order they are added).
enum ReportJSON {
    case int(Int)
    case double(Double)
    case string(String)
    case bool(Bool)
    case null
    case array([ReportJSON])
    case object([(String, ReportJSON)])

    var text: String {
        switch self {
        case .int(let value): return String(value)
        case .double(let value):
            guard value.isFinite else { return "null" }
            if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
            return "\((value * 1000).rounded() / 1000)"
        case .string(let value): return ReportJSON.quote(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .array(let values): return "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let pairs): return "{" + pairs.map { ReportJSON.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// One run's result: a human table on stdout, then the same figures as one JSON line.
struct Report {
    let command: String
    private var rows: [(String, String)] = []
    private var fields: [(String, ReportJSON)] = []

    init(command: String) {
        self.command = command
        fields.append(("command", .string(command)))
    }

    /// A table row (empty label: a section line) and, with `key`, a JSON field.
    mutating func row(_ label: String, _ text: String, key: String? = nil, _ value: ReportJSON = .null) {
        rows.append((label, text))
        if let key { fields.append((key, value)) }
    }

    /// A JSON field with no table row.
    mutating func field(_ key: String, _ value: ReportJSON) {
        fields.append((key, value))
    }

    var jsonLine: String { ReportJSON.object(fields).text }

    func print() {
        let width = rows.map(\.0.count).max() ?? 0
        var lines = ["tombola-bench \(command)"]
        for (label, text) in rows {
            if label.isEmpty {
                lines.append("  \(text)")
            } else {
                lines.append("  " + label + String(repeating: " ", count: width - label.count) + "  " + text)
            }
        }
        lines.append(jsonLine)
        emit(lines.joined(separator: "\n"))
    }
}

enum Format {
    static func ms(_ microseconds: UInt64?) -> String {
        guard let microseconds else { return "–" }
        return String(format: "%.2f ms", Double(microseconds) / 1000)
    }

    static func msValue(_ microseconds: UInt64?) -> ReportJSON {
        guard let microseconds else { return .null }
        return .double((Double(microseconds) / 1000 * 1000).rounded() / 1000)
    }

    static func mib(_ kib: Int?) -> String {
        guard let kib else { return "–" }
        return String(format: "%.1f MiB", Double(kib) / 1024)
    }

    static func percent(_ value: Double) -> String { String(format: "%.3f%%", value * 100) }

    static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
}
