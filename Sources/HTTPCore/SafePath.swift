/// Why a request path cannot name a file under the served root.
public struct SafePathError: Error, Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Not starting with `/`.
        case notAbsolute
        /// `%` not followed by two hex digits.
        case invalidPercentEncoding
        /// Decoded bytes are not UTF-8.
        case invalidUTF8
        /// NUL or another control character.
        case controlCharacter
        /// `.` or `..` segment, raw or encoded.
        case dotSegment
        /// `%2F` inside a segment.
        case encodedSlash
        /// `\`, raw or encoded.
        case backslash
    }

    public let kind: Kind

    public init(_ kind: Kind) { self.kind = kind }

    /// 400 for malformed input, 404 for well-formed paths that can never name a served file.
    public var status: HTTPStatus {
        switch kind {
        case .notAbsolute, .invalidPercentEncoding, .invalidUTF8, .controlCharacter: .badRequest
        case .dotSegment, .encodedSlash, .backslash: .notFound
        }
    }
}

/// Turns a raw request path into validated, decoded segments that cannot leave the root.
public enum SafePath {
    /// `"/css/a%20b.css"` → `["css", "a b.css"]`; `"/"` → `[]`. Empty segments collapse.
    public static func resolve(_ rawPath: String) throws(SafePathError) -> [String] {
        let raw = Array(rawPath.utf8)
        guard raw.first == UInt8(ascii: "/") else { throw SafePathError(.notAbsolute) }
        var segments: [String] = []
        for rawSegment in raw.split(separator: UInt8(ascii: "/")) {
            let bytes = try percentDecode(rawSegment)
            for byte in bytes {
                if byte < 0x20 || byte == 0x7F { throw SafePathError(.controlCharacter) }
                if byte == UInt8(ascii: "/") { throw SafePathError(.encodedSlash) }
                if byte == UInt8(ascii: "\\") { throw SafePathError(.backslash) }
            }
            if bytes.elementsEqual(".".utf8) || bytes.elementsEqual("..".utf8) { throw SafePathError(.dotSegment) }
            guard let segment = String(validating: bytes, as: UTF8.self) else { throw SafePathError(.invalidUTF8) }
            // C1 controls (U+0080–U+009F) and other control scalars.
            if segment.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw SafePathError(.controlCharacter)
            }
            segments.append(segment)
        }
        return segments
    }

    static func percentDecode(_ bytes: ArraySlice<UInt8>) throws(SafePathError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%") {
                guard bytes.endIndex - i >= 3,
                      let hi = ASCII.hexValue(bytes[i + 1]), let lo = ASCII.hexValue(bytes[i + 2]) else {
                    throw SafePathError(.invalidPercentEncoding)
                }
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(byte)
                i += 1
            }
        }
        return out
    }
}
