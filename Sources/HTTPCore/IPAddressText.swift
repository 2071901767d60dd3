/// Textual IPv4 and IPv6 addresses ⇄ bytes, without the C library (HTTPCore has no sockets).
enum IPAddressText {
    /// 4 bytes for IPv4 (and IPv4-mapped IPv6), 16 for IPv6; nil when malformed.
    static func bytes(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }  // fe80::1%eth0
        if !text.contains(":") { return ipv4(text) }
        guard let v6 = ipv6(text) else { return nil }
        if v6[0..<10].allSatisfy({ $0 == 0 }) && v6[10] == 0xFF && v6[11] == 0xFF { return Array(v6[12...]) }
        return v6
    }

    static func text(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var groups: [UInt16] = []
        for index in stride(from: 0, to: 16, by: 2) { groups.append(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])) }
        // RFC 5952: the longest run (≥ 2) of zero groups becomes "::".
        var best = (start: -1, length: 0)
        var index = 0
        while index < 8 {
            if groups[index] == 0 {
                var end = index
                while end < 8 && groups[end] == 0 { end += 1 }
                if end - index > best.length && end - index >= 2 { best = (index, end - index) }
                index = end
            } else {
                index += 1
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.start >= 0 else { return hex.joined(separator: ":") }
        let head = hex[0..<best.start].joined(separator: ":")
        let tail = hex[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }

    private static func ipv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCIIDigit),
                  let value = UInt8(part), part.count == 1 || part.first != "0" else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func ipv6(_ text: Substring) -> [UInt8]? {
        var text = text
        var tail: [UInt8] = []
        // A trailing dotted quad (::ffff:192.0.2.1).
        if let lastColon = text.lastIndex(of: ":"), text[text.index(after: lastColon)...].contains(".") {
            guard let v4 = ipv4(text[text.index(after: lastColon)...]) else { return nil }
            tail = v4
            text = text[...lastColon]
            if text.hasSuffix("::") { } else { text = text.dropLast() }
        }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        let tailGroups = halves.count == 2 ? groups(halves[1]) : []
        guard let tailGroups else { return nil }
        let total = head.count + tailGroups.count + tail.count / 2
        if halves.count == 2 { guard total < 8 else { return nil } } else { guard total == 8 else { return nil } }
        var all = head + [UInt16](repeating: 0, count: 8 - total) + tailGroups
        if halves.count == 1 { all = head }
        var bytes: [UInt8] = []
        for group in all { bytes += [UInt8(group >> 8), UInt8(group & 0xFF)] }
        return bytes + tail
    }
}

extension StringProtocol {
    fileprivate func components(separatedBy separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            parts.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
