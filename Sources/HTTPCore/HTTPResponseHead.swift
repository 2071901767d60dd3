/// A response status line and header fields, serialized as HTTP/1.1 (RFC 9112 §4).
public struct HTTPResponseHead: Sendable, Equatable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.headers = headers
    }

    /// Appends the status line, the fields and the empty line to `bytes`. CR, LF and NUL
    /// in names or values are dropped, so a value can never split the response.
    public func serialize(into bytes: inout [UInt8]) {
        bytes.append(contentsOf: "HTTP/1.1 \(status.code) ".utf8)
        Self.appendSafely(status.reasonPhrase, to: &bytes)
        bytes.append(ASCII.cr)
        bytes.append(ASCII.lf)
        for field in headers {
            Self.appendSafely(field.name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(ASCII.space)
            Self.appendSafely(field.value, to: &bytes)
            bytes.append(ASCII.cr)
            bytes.append(ASCII.lf)
        }
        bytes.append(ASCII.cr)
        bytes.append(ASCII.lf)
    }

    public func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + headers.count * 40)
        serialize(into: &bytes)
        return bytes
    }

    private static func appendSafely(_ text: String, to bytes: inout [UInt8]) {
        for byte in text.utf8 where byte != ASCII.cr && byte != ASCII.lf && byte != 0 {
            bytes.append(byte)
        }
    }
}
