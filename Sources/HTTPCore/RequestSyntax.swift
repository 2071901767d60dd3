/// Stateless pieces of request syntax the parser applies to complete lines and heads.
enum RequestSyntax {
    /// `HTTP/1.x`; another major version → 505, anything malformed → 400 (RFC 9112 §2.3).
    static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        let v = Array(bytes)
        guard v.count == 8, v[0..<5].elementsEqual("HTTP/".utf8), v[6] == UInt8(ascii: "."),
              let major = digit(v[5]), let minor = digit(v[7]) else {
            throw HTTPParseError(.invalidVersion)
        }
        guard major == 1 else { throw HTTPParseError(.unsupportedVersion) }
        return minor
    }

    static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    /// All Content-Length values (and list elements) must be the same decimal number.
    static func parseContentLength(_ values: [String]) throws(HTTPParseError) -> Int {
        var result: Int?
        for value in values {
            let elements = value.split(separator: ",", omittingEmptySubsequences: false).map(ASCII.trimmingWhitespace)
            for element in elements {
                guard !element.isEmpty, element.utf8.count <= 18,
                      element.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                      let n = Int(element) else {
                    throw HTTPParseError(.invalidContentLength)
                }
                if let result, result != n { throw HTTPParseError(.invalidContentLength) }
                result = n
            }
        }
        guard let result else { throw HTTPParseError(.invalidContentLength) }
        return result
    }

    /// Path and query from origin-form, absolute-form or asterisk-form (RFC 9112 §3.2).
    static func splitTarget(_ target: String, method: String) throws(HTTPParseError) -> (String, String?) {
        var rest = Substring(target)
        if target == "*" {
            guard method == "OPTIONS" else { throw HTTPParseError(.invalidTarget) }
            return ("*", nil)
        }
        if !target.hasPrefix("/") {
            let lower = target.lowercased()
            let scheme = lower.hasPrefix("http://") ? 7 : lower.hasPrefix("https://") ? 8 : 0
            guard scheme > 0 else { throw HTTPParseError(.invalidTarget) }
            rest = rest.dropFirst(scheme)
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            guard authorityEnd > rest.startIndex else { throw HTTPParseError(.invalidTarget) }
            rest = rest[authorityEnd...]
            if !rest.hasPrefix("/") { rest = "/" + rest }
        }
        if let q = rest.firstIndex(of: "?") {
            return (String(rest[..<q]), String(rest[rest.index(after: q)...]))
        }
        return (String(rest), nil)
    }
}
