import Testing
import HTTPCore

@Suite struct HTTPRequestParserLimitTests {
    static let limits = HTTPLimits()

    @Test func acceptsARequestLineExactlyAtTheLimit() throws {
        let target = "/" + String(repeating: "a", count: 8192 - "GET  HTTP/1.1".utf8.count - 1)
        let line = "GET \(target) HTTP/1.1"
        #expect(line.utf8.count == 8192)
        #expect(try parseAll("\(line)\r\nHost: h\r\n\r\n").count == 1)
        #expect(try parseAll("\(line)\nHost: h\n\n").count == 1)
    }

    @Test func rejectsARequestLineOneByteOverTheLimit() {
        let target = "/" + String(repeating: "a", count: 8192 - "GET  HTTP/1.1".utf8.count)
        let error = parseError("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(error?.kind == .requestLineTooLong)
        #expect(error?.status.code == 414)
    }

    @Test func rejectsALongRequestLineBeforeItEnds() {
        var parser = HTTPRequestParser()
        parser.append(Array("GET /".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 8192))
        #expect(throws: HTTPParseError(.requestLineTooLong)) { try parser.next() }
    }

    @Test func waitsWhileAnUnterminatedRequestLineCanStillFit() throws {
        var parser = HTTPRequestParser()
        parser.append([UInt8](repeating: UInt8(ascii: "a"), count: 8192) + [ASCII_CR])
        #expect(try parser.next() == nil)
    }

    @Test func rejectsEndlessEmptyLines() {
        let error = parseError(String(repeating: "\r\n", count: 5000))
        #expect(error?.kind == .tooManyEmptyLines)
    }

    @Test func acceptsHeadersExactlyAtTheByteLimit() throws {
        // One field line of exactly 16384 bytes including CRLF, after the Host line.
        let host = "Host: h\r\n"
        let filler = 16384 - host.utf8.count - "X: \r\n".utf8.count
        let request = "GET / HTTP/1.1\r\n\(host)X: \(String(repeating: "v", count: filler))\r\n\r\n"
        #expect(try parseAll(request).count == 1)
        let over = "GET / HTTP/1.1\r\n\(host)X: \(String(repeating: "v", count: filler + 1))\r\n\r\n"
        #expect(parseError(over)?.kind == .headerSectionTooLarge)
        #expect(parseError(over)?.status.code == 431)
    }

    @Test func rejectsOversizedHeadersBeforeTheLineEnds() {
        var parser = HTTPRequestParser()
        parser.append(Array("GET / HTTP/1.1\r\nX: ".utf8) + [UInt8](repeating: UInt8(ascii: "v"), count: 16384))
        #expect(throws: HTTPParseError(.headerSectionTooLarge)) { try parser.next() }
    }

    @Test func acceptsExactlyTheMaximumFieldCount() throws {
        let fields = (1..<100).map { "X-\($0): v\r\n" }.joined()
        #expect(try parseAll("GET / HTTP/1.1\r\nHost: h\r\n\(fields)\r\n").first?.head.headers.count == 100)
        let error = parseError("GET / HTTP/1.1\r\nHost: h\r\n\(fields)X-100: v\r\n\r\n")
        #expect(error?.kind == .tooManyHeaderFields)
        #expect(error?.status.code == 431)
    }

    @Test func rejectsAnOversizedContentLengthBeforeTheBodyArrives() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048577\r\n\r\n".utf8))
        #expect(throws: HTTPParseError(.bodyTooLarge)) { try parser.next() }
        #expect(HTTPParseError(.bodyTooLarge).status.code == 413)
    }

    @Test func acceptsABodyExactlyAtTheLimit() throws {
        let body = [UInt8](repeating: 7, count: 1 << 20)
        let head = Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \(1 << 20)\r\n\r\n".utf8)
        #expect(try parseAll([head, body]).first?.body == body)
    }

    @Test func enforcesTheBodyLimitOnDecodedChunkedBodies() throws {
        let limits = HTTPLimits(bodyBytes: 10)
        let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(try parseAll(head + "5\r\n12345\r\n5\r\n67890\r\n0\r\n\r\n", limits: limits).first?.body.count == 10)
        #expect(parseError(head + "5\r\n12345\r\n6\r\n", limits: limits)?.kind == .bodyTooLarge)
        #expect(parseError(head + "B\r\n", limits: limits)?.kind == .bodyTooLarge)
        // A huge size fails while its digits arrive instead of overflowing.
        #expect(parseError(head + "FFFFFFFFFFFFFFFFFFFFFFFF", limits: limits)?.kind == .bodyTooLarge)
    }

    @Test func rejectsAnEndlessChunkSizeLine() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        let error = parseError(head + "1;" + String(repeating: "e", count: 2000))
        #expect(error?.kind == .chunkSizeLineTooLong)
    }

    @Test func limitsTrailerBytesLikeHeaders() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
        let error = parseError(head + "X: " + String(repeating: "t", count: 20000))
        #expect(error?.kind == .headerSectionTooLarge)
    }

    @Test func customLimitsApply() {
        let limits = HTTPLimits(requestLineBytes: 20, headerBytes: 30, headerFields: 2, bodyBytes: 3)
        #expect(parseError("GET /aaaaaaaaaaaaaaaaaa HTTP/1.1\r\n", limits: limits)?.kind == .requestLineTooLong)
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n", limits: limits)?.kind == .tooManyHeaderFields)
        #expect(parseError("GET / HTTP/1.1\r\nHost: hhhhhhhhhhhhhhhhhhhhhhhhhhhhhh\r\n\r\n", limits: limits)?.kind == .headerSectionTooLarge)
        #expect(parseError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\n", limits: limits)?.kind == .bodyTooLarge)
    }
}

private let ASCII_CR: UInt8 = 0x0D
