/// `application/x-www-form-urlencoded` query strings (`a=1&b=x+y` → `[("a","1"),("b","x y")]`).
public enum QueryString {
    /// Pairs in order; `+` is a space; a name without `=` gets `""`; empty pairs are skipped.
    /// Malformed escapes stay literal and invalid UTF-8 becomes U+FFFD, as browsers do.
    public static func parse(_ query: String) -> [(String, String)] {
        query.utf8.split(separator: UInt8(ascii: "&")).map { pair in
            if let eq = pair.firstIndex(of: UInt8(ascii: "=")) {
                return (decode(pair[pair.startIndex..<eq]), decode(pair[pair.index(after: eq)...]))
            }
            return (decode(pair[...]), "")
        }
    }

    /// The first value of `name`, if present.
    public static func value(of name: String, in query: String?) -> String? {
        guard let query else { return nil }
        return parse(query).first { $0.0 == name }?.1
    }

    static func decode(_ bytes: Substring.UTF8View.SubSequence) -> String {
        let bytes = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "+") {
                out.append(0x20)
            } else if byte == UInt8(ascii: "%"), i + 2 < bytes.count,
                      let hi = ASCII.hexValue(bytes[i + 1]), let lo = ASCII.hexValue(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 2
            } else {
                out.append(byte)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
