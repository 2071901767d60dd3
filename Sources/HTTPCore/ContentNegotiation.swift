/// Whether an `Accept-Encoding` value admits gzip (RFC 9110 §12.5.3): `gzip` (or `x-gzip`)
/// with q > 0, or `*` with q > 0 when gzip is not named. No header → false (send identity).
public func acceptsGzip(_ acceptEncoding: String?) -> Bool {
    guard let acceptEncoding else { return false }
    var gzipQ: Double?
    var starQ: Double?
    for element in ASCII.listElements(acceptEncoding) {
        let parts = element.split(separator: ";", omittingEmptySubsequences: false).map(ASCII.trimmingWhitespace)
        let coding = parts[0]
        var q = 1.0
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(ASCII.trimmingWhitespace)
            guard pair.count == 2, ASCII.equalsIgnoringCase(pair[0], "q") else { continue }
            guard let value = qValue(pair[1]) else { q = 0; break }
            q = value
        }
        if ASCII.equalsIgnoringCase(coding, "gzip") || ASCII.equalsIgnoringCase(coding, "x-gzip") {
            gzipQ = max(gzipQ ?? 0, q)
        } else if coding == "*" {
            starQ = max(starQ ?? 0, q)
        }
    }
    if let gzipQ { return gzipQ > 0 }
    return (starQ ?? 0) > 0
}

/// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` (RFC 9110 §12.4.2).
private func qValue(_ text: Substring) -> Double? {
    let bytes = Array(text.utf8)
    guard let first = bytes.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1"), bytes.count <= 5 else {
        return nil
    }
    if bytes.count > 1 {
        guard bytes[1] == UInt8(ascii: "."), bytes[2...].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    }
    guard let value = Double(text), value <= 1 else { return nil }
    return value
}

/// Whether `If-None-Match` matches `etag` by weak comparison (RFC 9110 §13.1.2, §8.8.3.2):
/// `*`, or any listed entity-tag whose opaque part equals `etag`'s, `W/` ignored.
/// A malformed header matches nothing.
public func ifNoneMatch(_ header: String?, matches etag: String) -> Bool {
    guard let header else { return false }
    guard let target = EntityTag.parseList(etag)?.first else { return false }
    if ASCII.trimmingWhitespace(Substring(header)) == "*" { return true }
    guard let tags = EntityTag.parseList(header) else { return false }
    return tags.contains { $0.opaque == target.opaque }
}

/// An entity-tag: `[W/] DQUOTE *etagc DQUOTE` (RFC 9110 §8.8.3).
struct EntityTag: Equatable {
    var weak: Bool
    var opaque: String

    /// A comma-separated list of entity-tags (commas may appear inside the quotes).
    static func parseList(_ text: String) -> [EntityTag]? {
        let bytes = Array(text.utf8)
        var tags: [EntityTag] = []
        var i = 0
        func skipSeparators() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == UInt8(ascii: ",") { i += 1 }
        }
        skipSeparators()
        while i < bytes.count {
            var weak = false
            if bytes.count - i >= 2, bytes[i] == UInt8(ascii: "W"), bytes[i + 1] == UInt8(ascii: "/") {
                weak = true
                i += 2
            }
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
            i += 1
            let start = i
            while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                let b = bytes[i]
                guard b == 0x21 || (0x23...0x7E).contains(b) || b >= 0x80 else { return nil }
                i += 1
            }
            guard i < bytes.count else { return nil }
            tags.append(EntityTag(weak: weak, opaque: String(decoding: bytes[start..<i], as: UTF8.self)))
            i += 1
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
            guard i == bytes.count || bytes[i] == UInt8(ascii: ",") else { return nil }
            skipSeparators()
        }
        return tags
    }
}
