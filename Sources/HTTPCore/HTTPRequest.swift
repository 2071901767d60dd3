/// The parsed head of a request (RFC 9112 §3).
public struct HTTPRequestHead: Sendable, Equatable {
    /// The method token, case preserved (`GET`).
    public var method: String
    /// The request target as sent (`/a%20b?x=1`).
    public var target: String
    /// The raw (still percent-encoded) path before `?`; `*` for OPTIONS' asterisk form.
    public var path: String
    /// The raw query after `?`, or nil when the target has no `?`.
    public var query: String?
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var versionMinor: Int
    public var headers: HTTPHeaders
    /// Whether the connection stays open after the response (RFC 9112 §9.3).
    public var keepAlive: Bool

    public init(
        method: String, target: String, path: String, query: String?,
        versionMinor: Int, headers: HTTPHeaders, keepAlive: Bool
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.versionMinor = versionMinor
        self.headers = headers
        self.keepAlive = keepAlive
    }
}

/// A complete request: head and (de-chunked) body.
public struct HTTPRequest: Sendable, Equatable {
    public var head: HTTPRequestHead
    public var body: [UInt8]

    public init(head: HTTPRequestHead, body: [UInt8] = []) {
        self.head = head
        self.body = body
    }
}
