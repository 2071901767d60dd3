/// An incremental HTTP/1.1 request parser (RFC 9112): feed bytes with `append`, then call
/// `next()` until it returns nil (need more data). Pipelined requests come out in order.
/// Each limit fails the moment it is knowable; after an error the parser stays failed.
public struct HTTPRequestParser: Sendable {
    public let limits: HTTPLimits
    /// Asked, once per request, only when a body would pass `limits.bodyBytes`: a larger limit
    /// for this request (e.g. a pool upload by a draw's host), or nil to keep the default. Decided
    /// from the head alone, before the body is buffered.
    public var largerBodyLimit: (@Sendable (HTTPRequestHead) -> Int?)?

    private enum State: Sendable {
        case requestLine
        case headerLines
        case fixedBody(remaining: Int)
        case chunkSizeLine
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailerLines
        case failed(HTTPParseError)
    }

    private var state: State = .requestLine
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// Bytes after `readIndex` already searched for LF without finding one.
    private var scannedBytes = 0

    // The request being assembled.
    private var emptyLineBytes = 0
    private var method = ""
    private var target = ""
    private var versionMinor = 1
    private var headers = HTTPHeaders()
    private var headerBytes = 0
    private var body: [UInt8] = []
    private var head: HTTPRequestHead?
    /// The body limit of the request being read: `limits.bodyBytes` until `largerBodyLimit` raised it.
    private var bodyLimit: Int
    private var askedForLargerBody = false

    public init(limits: HTTPLimits = .init(), largerBodyLimit: (@Sendable (HTTPRequestHead) -> Int?)? = nil) {
        self.limits = limits
        self.largerBodyLimit = largerBodyLimit
        self.bodyLimit = limits.bodyBytes
    }

    /// Whether a body of `size` bytes fits, asking `largerBodyLimit` (once) before refusing.
    private mutating func bodyFits(_ size: Int) -> Bool {
        if size <= bodyLimit { return true }
        if !askedForLargerBody, let head, let decide = largerBodyLimit {
            askedForLargerBody = true
            if let larger = decide(head), larger > bodyLimit { bodyLimit = larger }
        }
        return size <= bodyLimit
    }

    /// Buffers received bytes. Ignored once the parser has failed.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if case .failed = state { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if case .failed = state { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received but not yet consumed by a returned request.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Whether a request has begun (bytes buffered or a head partly parsed): for choosing
    /// between a header-read timeout (408) and a quiet idle close.
    public var isMidRequest: Bool {
        if case .requestLine = state { return bufferedByteCount > 0 }
        return true
    }

    /// The head of a request whose body is still arriving (e.g. to answer
    /// `Expect: 100-continue`), nil otherwise.
    public var headAwaitingBody: HTTPRequestHead? {
        switch state {
        case .fixedBody, .chunkSizeLine, .chunkData, .chunkDataEnd, .trailerLines: head
        default: nil
        }
    }

    /// The failure, if the parser has failed.
    public var error: HTTPParseError? {
        if case .failed(let error) = state { return error }
        return nil
    }

    /// Hands over the unconsumed bytes (e.g. WebSocket frames pipelined behind an Upgrade
    /// request) and empties the buffer.
    public mutating func takeBufferedBytes() -> [UInt8] {
        let rest = Array(buffer[readIndex...])
        buffer.removeAll(keepingCapacity: false)
        readIndex = 0
        scannedBytes = 0
        return rest
    }

    /// The next complete request, nil if more bytes are needed.
    public mutating func next() throws(HTTPParseError) -> HTTPRequest? {
        do {
            return try step()
        } catch {
            state = .failed(error)
            buffer = []
            readIndex = 0
            throw error
        }
    }

    private mutating func step() throws(HTTPParseError) -> HTTPRequest? {
        while true {
            switch state {
            case .failed(let error):
                throw error

            case .requestLine:
                guard let line = takeLine() else {
                    let pending = bufferedByteCount
                    if pending > limits.requestLineBytes + 1
                        || (pending == limits.requestLineBytes + 1 && buffer.last != ASCII.cr) {
                        throw HTTPParseError(.requestLineTooLong)
                    }
                    return nil
                }
                if line.range.isEmpty {
                    // RFC 9112 §2.2: ignore empty lines before a request line, within reason.
                    emptyLineBytes += line.totalLength
                    if emptyLineBytes > limits.requestLineBytes { throw HTTPParseError(.tooManyEmptyLines) }
                    continue
                }
                if line.range.count > limits.requestLineBytes { throw HTTPParseError(.requestLineTooLong) }
                try parseRequestLine(buffer[line.range])
                state = .headerLines

            case .headerLines:
                guard let line = takeLine() else {
                    let pending = bufferedByteCount
                    let onlyCR = pending == 1 && buffer[readIndex] == ASCII.cr
                    if !onlyCR && headerBytes + pending > limits.headerBytes {
                        throw HTTPParseError(.headerSectionTooLarge)
                    }
                    return nil
                }
                if line.range.isEmpty {
                    if let request = try finishHead() { return request }
                    continue
                }
                headerBytes += line.totalLength
                if headerBytes > limits.headerBytes { throw HTTPParseError(.headerSectionTooLarge) }
                if headers.count >= limits.headerFields { throw HTTPParseError(.tooManyHeaderFields) }
                try parseHeaderLine(buffer[line.range])

            case .fixedBody(let remaining):
                let take = min(remaining, bufferedByteCount)
                body.append(contentsOf: buffer[readIndex..<readIndex + take])
                readIndex += take
                if take < remaining {
                    state = .fixedBody(remaining: remaining - take)
                    return nil
                }
                return finishRequest()

            case .chunkSizeLine:
                // The same checks in the same order whether or not the line is complete, so the
                // outcome never depends on how the bytes arrived.
                guard let line = takeLine() else {
                    // Fail on a bad or oversized size while its digits are still arriving.
                    try checkChunkSizePrefix(buffer[readIndex...])
                    if bufferedByteCount > limits.chunkSizeLineBytes + 1 { throw HTTPParseError(.chunkSizeLineTooLong) }
                    return nil
                }
                try checkChunkSizePrefix(buffer[line.range])
                if line.range.count > limits.chunkSizeLineBytes { throw HTTPParseError(.chunkSizeLineTooLong) }
                let size = try parseChunkSize(buffer[line.range])
                if size == 0 {
                    headerBytes = 0
                    state = .trailerLines
                } else {
                    state = .chunkData(remaining: size)
                }

            case .chunkData(let remaining):
                let take = min(remaining, bufferedByteCount)
                body.append(contentsOf: buffer[readIndex..<readIndex + take])
                readIndex += take
                if take < remaining {
                    state = .chunkData(remaining: remaining - take)
                    return nil
                }
                state = .chunkDataEnd

            case .chunkDataEnd:
                guard let line = takeLine() else {
                    let pending = bufferedByteCount
                    if pending > 1 || (pending == 1 && buffer[readIndex] != ASCII.cr) {
                        throw HTTPParseError(.invalidChunkTerminator)
                    }
                    return nil
                }
                guard line.range.isEmpty else { throw HTTPParseError(.invalidChunkTerminator) }
                state = .chunkSizeLine

            case .trailerLines:
                // RFC 9112 §7.1.2: trailer fields are skipped, but still count against the limit.
                guard let line = takeLine() else {
                    let pending = bufferedByteCount
                    let onlyCR = pending == 1 && buffer[readIndex] == ASCII.cr
                    if !onlyCR && headerBytes + pending > limits.headerBytes {
                        throw HTTPParseError(.headerSectionTooLarge)
                    }
                    return nil
                }
                if line.range.isEmpty { return finishRequest() }
                headerBytes += line.totalLength
                if headerBytes > limits.headerBytes { throw HTTPParseError(.headerSectionTooLarge) }
            }
        }
    }

    // MARK: Lines

    private struct Line {
        /// The line's content, without CR LF.
        var range: Range<Int>
        /// Content plus line terminator.
        var totalLength: Int
    }

    /// Takes the next LF-terminated line (CRLF or bare LF), or nil without consuming anything.
    private mutating func takeLine() -> Line? {
        let from = readIndex + scannedBytes
        guard let lf = buffer[from...].firstIndex(of: ASCII.lf) else {
            scannedBytes = buffer.count - readIndex
            return nil
        }
        let start = readIndex
        var end = lf
        if end > start && buffer[end - 1] == ASCII.cr { end -= 1 }
        readIndex = lf + 1
        scannedBytes = 0
        return Line(range: start..<end, totalLength: lf + 1 - start)
    }

    private mutating func compact() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex >= 4096 && readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }

    // MARK: Request line and fields

    /// `method SP request-target SP HTTP-version` (RFC 9112 §3).
    private mutating func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) {
        let parts = line.split(separator: ASCII.space, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw HTTPParseError(.invalidRequestLine) }
        guard ASCII.isToken(parts[0]) else { throw HTTPParseError(.invalidMethod) }
        let targetBytes = parts[1]
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw HTTPParseError(.invalidTarget)
        }
        versionMinor = try RequestSyntax.parseVersion(parts[2])
        method = String(decoding: parts[0], as: UTF8.self)
        target = String(decoding: targetBytes, as: UTF8.self)
    }

    /// `field-name ":" OWS field-value OWS` (RFC 9112 §5).
    private mutating func parseHeaderLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) {
        if let first = line.first, ASCII.isWhitespace(first) { throw HTTPParseError(.obsoleteLineFolding) }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw HTTPParseError(.invalidHeaderName) }
        let name = line[line.startIndex..<colon]
        guard ASCII.isToken(name) else { throw HTTPParseError(.invalidHeaderName) }
        var value = line[(colon + 1)...]
        while let b = value.first, ASCII.isWhitespace(b) { value.removeFirst() }
        while let b = value.last, ASCII.isWhitespace(b) { value.removeLast() }
        guard !value.contains(where: ASCII.isForbiddenInFieldValue) else { throw HTTPParseError(.invalidHeaderValue) }
        headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    // MARK: Framing

    /// Validates the head and decides how the body is framed (RFC 9112 §6.3).
    private mutating func finishHead() throws(HTTPParseError) -> HTTPRequest? {
        let hosts = headers.values(for: "Host")
        if hosts.count > 1 { throw HTTPParseError(.multipleHosts) }
        if hosts.isEmpty && versionMinor >= 1 { throw HTTPParseError(.missingHost) }

        let (path, query) = try RequestSyntax.splitTarget(target, method: method)
        let keepAlive: Bool
        if headers.contains(token: "close", in: "Connection") {
            keepAlive = false
        } else if versionMinor == 0 {
            keepAlive = headers.contains(token: "keep-alive", in: "Connection")
        } else {
            keepAlive = true
        }
        head = HTTPRequestHead(
            method: method, target: target, path: path, query: query,
            versionMinor: versionMinor, headers: headers, keepAlive: keepAlive)

        let hasLength = headers.contains(name: "Content-Length")
        if headers.contains(name: "Transfer-Encoding") {
            if hasLength { throw HTTPParseError(.contentLengthWithTransferEncoding) }
            // RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 is faulty framing.
            if versionMinor == 0 { throw HTTPParseError(.invalidTransferEncoding) }
            let codings = headers.listElements(for: "Transfer-Encoding")
            guard !codings.isEmpty else { throw HTTPParseError(.invalidTransferEncoding) }
            for coding in codings where !ASCII.equalsIgnoringCase(coding, "chunked") {
                throw HTTPParseError(ASCII.isToken(coding.utf8) ? .unsupportedTransferEncoding : .invalidTransferEncoding)
            }
            guard codings.count == 1 else { throw HTTPParseError(.invalidTransferEncoding) }
            state = .chunkSizeLine
            return nil
        }
        if hasLength {
            let length = try RequestSyntax.parseContentLength(headers.values(for: "Content-Length"))
            if !bodyFits(length) { throw HTTPParseError(.bodyTooLarge) }
            if length > 0 {
                state = .fixedBody(remaining: length)
                return nil
            }
        }
        return finishRequest()
    }

    /// `chunk-size [ chunk-ext ]`; extensions are ignored (RFC 9112 §7.1.1).
    private mutating func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        var size = 0
        var index = line.startIndex
        while index < line.endIndex, let digit = ASCII.hexValue(line[index]) {
            size = size * 16 + Int(digit)
            if !bodyFits(body.count + size) { throw HTTPParseError(.bodyTooLarge) }
            index += 1
        }
        guard index > line.startIndex else { throw HTTPParseError(.invalidChunkSize) }
        var rest = line[index...]
        while let b = rest.first, ASCII.isWhitespace(b) { rest.removeFirst() }
        guard rest.isEmpty || rest.first == UInt8(ascii: ";") else { throw HTTPParseError(.invalidChunkSize) }
        guard !rest.contains(where: ASCII.isForbiddenInFieldValue) else { throw HTTPParseError(.invalidChunkSize) }
        return size
    }

    /// Checks the hex digits at the start of a (possibly incomplete) chunk-size line, up to
    /// the line limit: a first byte that is not a digit → 400, a size over the body limit → 413.
    private mutating func checkChunkSizePrefix(_ pending: ArraySlice<UInt8>) throws(HTTPParseError) {
        var size = 0
        for (offset, byte) in pending.prefix(limits.chunkSizeLineBytes + 1).enumerated() {
            guard let digit = ASCII.hexValue(byte) else {
                if offset == 0 { throw HTTPParseError(.invalidChunkSize) }
                return
            }
            size = size * 16 + Int(digit)
            if !bodyFits(body.count + size) { throw HTTPParseError(.bodyTooLarge) }
        }
    }

    private mutating func finishRequest() -> HTTPRequest {
        let request = HTTPRequest(head: head!, body: body)
        state = .requestLine
        emptyLineBytes = 0
        method = ""
        target = ""
        versionMinor = 1
        headers = HTTPHeaders()
        headerBytes = 0
        body = []
        head = nil
        bodyLimit = limits.bodyBytes
        askedForLargerBody = false
        return request
    }
}
