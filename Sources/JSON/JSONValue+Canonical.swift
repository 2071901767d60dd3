extension JSONValue {
    /// `canon(x)` of docs/FAIRNESS.md §2: sorted keys, no whitespace, JSON.stringify escaping.
    /// Record hashes depend on these bytes: they must never change.
    public var canonicalBytes: [UInt8] {
        var out = [UInt8]()
        appendCanonical(to: &out)
        return out
    }

    public var canonicalString: String { String(decoding: canonicalBytes, as: UTF8.self) }

    public func appendCanonical(to out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .int(let i): JSONWriter.appendInteger(i, to: &out)
        case .double(let d): out += Array("\(d)".utf8)
        case .string(let s): JSONWriter.appendString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (position, item) in items.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                item.appendCanonical(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // Code-point order, as Python's sort_keys and a JS sort of ASCII keys.
            let keys = members.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) { $0.value < $1.value } }
            for (position, key) in keys.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.appendCanonical(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
