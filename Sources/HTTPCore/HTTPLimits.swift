/// Size limits the request parser enforces, each the moment it is knowable.
public struct HTTPLimits: Sendable, Hashable {
    /// Longest request line (method, target, version; without CRLF). Exceeding it → 414.
    public var requestLineBytes: Int
    /// Total bytes of the header field lines (with their line ends). Exceeding it → 431.
    public var headerBytes: Int
    /// Most header field lines. Exceeding it → 431.
    public var headerFields: Int
    /// Largest request body, fixed-length or decoded chunked. Exceeding it → 413.
    public var bodyBytes: Int
    /// Longest chunk-size line (with extensions) of a chunked body. Exceeding it → 400.
    public var chunkSizeLineBytes: Int

    public init(
        requestLineBytes: Int = 8192,
        headerBytes: Int = 16384,
        headerFields: Int = 100,
        bodyBytes: Int = 1 << 20,
        chunkSizeLineBytes: Int = 1024
    ) {
        self.requestLineBytes = requestLineBytes
        self.headerBytes = headerBytes
        self.headerFields = headerFields
        self.bodyBytes = bodyBytes
        self.chunkSizeLineBytes = chunkSizeLineBytes
    }
}
