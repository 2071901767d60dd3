/// RFC 7239 `Forwarded` elements, in order across every header line.
enum ForwardedHeader {
    /// Each element's parameters (names lowercased, quotes removed); malformed pairs are dropped.
    static func elements(_ lines: [String]) -> [[String: String]] {
        var result: [[String: String]] = []
        for line in lines {
            for element in split(line, on: ",") {
                var parameters: [String: String] = [:]
                for pair in split(element, on: ";") {
                    guard let equals = pair.firstIndex(of: "=") else { continue }
                    let name = pair[..<equals].trimmingCharacters(" \t").lowercased()
                    var value = Substring(pair[pair.index(after: equals)...].trimmingCharacters(" \t"))
                    if value.count >= 2, value.first == "\"", value.last == "\"" {
                        value = value.dropFirst().dropLast()
                    }
                    parameters[name] = value.replacingBackslashEscapes()
                }
                if !parameters.isEmpty { result.append(parameters) }
            }
        }
        return result
    }

    /// `[2001:db8::1]:4711` → `2001:db8::1`; `192.0.2.1:80` → `192.0.2.1`.
    static func node(_ value: String) -> String {
        if value.hasPrefix("["), let close = value.firstIndex(of: "]") {
            return String(value[value.index(after: value.startIndex)..<close])
        }
        let colons = value.filter { $0 == ":" }.count
        if colons == 1, let colon = value.firstIndex(of: ":") { return String(value[..<colon]) }
        return value
    }

    /// Splits on `separator` outside double quotes.
    private static func split(_ text: String, on separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if character == "\\" && quoted {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == separator && !quoted {
                parts.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current)
        return parts
    }
}

extension Substring {
    fileprivate func replacingBackslashEscapes() -> String {
        var result = ""
        var escaped = false
        for character in self {
            if character == "\\" && !escaped { escaped = true; continue }
            escaped = false
            result.append(character)
        }
        return result
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(_ set: String) -> String {
        var value = Substring(self)
        while let first = value.first, set.contains(first) { value = value.dropFirst() }
        while let last = value.last, set.contains(last) { value = value.dropLast() }
        return String(value)
    }
}
