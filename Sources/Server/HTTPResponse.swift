import HTTPCore

/// A response an HTTP handler produces. The server adds `Date`, `Server`,
/// `Content-Length`, `Connection` and the security headers; HEAD drops the body.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Header lines already serialized (`Name: value\r\n`…), for responses built once and
    /// served many times (static files).
    var preserializedHeaders: [UInt8] = []

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A small `text/plain` response; `text` defaults to the reason phrase.
    public static func text(_ status: HTTPStatus, _ text: String? = nil) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"],
                     body: Array(((text ?? status.reasonPhrase) + "\n").utf8))
    }

    /// A JSON response from already-encoded bytes.
    public static func json(_ status: HTTPStatus = .ok, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// 405 with the `Allow` header RFC 9110 §15.5.6 requires.
    public static func methodNotAllowed(allow: [String]) -> HTTPResponse {
        var response = HTTPResponse.text(.methodNotAllowed)
        response.headers.add(name: "Allow", value: allow.joined(separator: ", "))
        return response
    }
}
