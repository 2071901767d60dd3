import Testing
import HTTPCore

@Suite struct HTTPRequestParserTests {
    static let pipelined = Array((
        "GET /a?x=1 HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n"
        + "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
        + "PUT /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "3;ext=1\r\nabc\r\n1\r\nd\r\n0\r\nX-Trailer: y\r\n\r\n"
        + "\r\nGET / HTTP/1.0\nConnection: close\n\n"
    ).utf8)

    static func checkPipelined(_ requests: [HTTPRequest]) {
        #expect(requests.count == 4)
        guard requests.count == 4 else { return }
        #expect(requests[0].head.method == "GET")
        #expect(requests[0].head.path == "/a")
        #expect(requests[0].head.query == "x=1")
        #expect(requests[0].head.target == "/a?x=1")
        #expect(requests[0].head.headers["accept"] == "*/*")
        #expect(requests[0].body.isEmpty)
        #expect(requests[0].head.keepAlive)
        #expect(requests[1].head.method == "POST")
        #expect(requests[1].body == Array("hello".utf8))
        #expect(requests[2].head.method == "PUT")
        #expect(requests[2].body == Array("abcd".utf8))
        #expect(requests[3].head.versionMinor == 0)
        #expect(requests[3].head.path == "/")
        #expect(requests[3].head.query == nil)
        #expect(!requests[3].head.keepAlive)
    }

    @Test func parsesPipelinedRequestsInOrder() throws {
        Self.checkPipelined(try parseAll([Self.pipelined]))
    }

    @Test func parsesPipelinedRequestsSplitAtEveryByteOffset() throws {
        for split in everySplit(Self.pipelined) {
            Self.checkPipelined(try parseAll(split))
        }
    }

    @Test func parsesPipelinedRequestsFedOneByteAtATime() throws {
        Self.checkPipelined(try parseAll(Self.pipelined.map { [$0] }))
    }

    @Test func parsesEverySplitIntoThreePieces() throws {
        let bytes = Array("POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n".utf8)
        for i in 0...bytes.count {
            for j in i...bytes.count {
                let requests = try parseAll([Array(bytes[..<i]), Array(bytes[i..<j]), Array(bytes[j...])])
                #expect(requests.count == 1 && requests.first?.body == Array("ab".utf8), "split \(i) \(j)")
            }
        }
    }

    @Test func returnsNilUntilTheRequestIsComplete() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("GET / HTTP/1.1\r\nHost: h\r\n".utf8))
        #expect(try parser.next() == nil)
        #expect(parser.isMidRequest)
        parser.append(Array("\r\n".utf8))
        #expect(try parser.next() != nil)
        #expect(try parser.next() == nil)
        #expect(!parser.isMidRequest)
    }

    @Test func acceptsUnsafeRawBufferPointers() throws {
        var parser = HTTPRequestParser()
        let bytes = Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        bytes.withUnsafeBytes { parser.append($0) }
        #expect(try parser.next()?.head.path == "/")
    }

    @Test func handsOverBytesBehindAnUpgradeRequest() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("GET /ws HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\n".utf8) + [0x81, 0x80, 1, 2])
        let request = try #require(try parser.next())
        #expect(request.head.headers.contains(token: "upgrade", in: "connection"))
        #expect(parser.takeBufferedBytes() == [0x81, 0x80, 1, 2])
        #expect(parser.bufferedByteCount == 0)
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: h\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: h\r\nConnection: Keep-Alive, CLOSE\r\n\r\n", false),
        ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
        ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
    ])
    func decidesKeepAlive(request: String, keepAlive: Bool) throws {
        #expect(try parseAll(request).first?.head.keepAlive == keepAlive)
    }

    @Test(arguments: [
        ("/", "/", nil),
        ("/a/b?", "/a/b", ""),
        ("/a?b?c", "/a", "b?c"),
        ("/%2e%2E/x", "/%2e%2E/x", nil),
        ("http://example.com/p?q=1", "/p", "q=1"),
        ("HTTP://example.com", "/", nil),
        ("http://example.com?x", "/", "x"),
    ] as [(String, String, String?)])
    func splitsTargetIntoPathAndQuery(target: String, path: String, query: String?) throws {
        let head = try #require(try parseAll("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n").first?.head)
        #expect(head.path == path)
        #expect(head.query == query)
        #expect(head.target == target)
    }

    @Test func acceptsAsteriskFormForOptions() throws {
        #expect(try parseAll("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n").first?.head.path == "*")
        #expect(parseError("GET * HTTP/1.1\r\nHost: h\r\n\r\n")?.kind == .invalidTarget)
    }

    @Test func keepsHeaderOrderAndTrimsWhitespace() throws {
        let head = try #require(try parseAll("GET / HTTP/1.1\r\nHost:h\r\nX-A: \t1 2 \t\r\nx-a: 3\r\nEmpty:\r\n\r\n").first?.head)
        #expect(head.headers.map(\.name) == ["Host", "X-A", "x-a", "Empty"])
        #expect(head.headers.values(for: "X-a") == ["1 2", "3"])
        #expect(head.headers["empty"] == "")
        #expect(head.headers["host"] == "h")
    }

    @Test func ignoresEmptyLinesBeforeTheRequestLine() throws {
        #expect(try parseAll("\r\n\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n").count == 1)
    }

    @Test func acceptsLaterMinorVersions() throws {
        #expect(try parseAll("GET / HTTP/1.2\r\nHost: h\r\n\r\n").first?.head.versionMinor == 2)
    }

    @Test func acceptsRepeatedIdenticalContentLengths() throws {
        let requests = try parseAll("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nab")
        #expect(requests.first?.body == Array("ab".utf8))
    }

    @Test func acceptsUppercaseChunkedAndHexSizes() throws {
        let body = String(repeating: "z", count: 26)
        let requests = try parseAll("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n1A \t;a=\"b\"\r\n\(body)\r\n0;x\r\n\r\n")
        #expect(requests.first?.body == Array(body.utf8))
    }

    // MARK: Rejections

    @Test(arguments: [
        ("GET / HTTP/1.1\r\n\r\n", HTTPParseError.Kind.missingHost, 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .multipleHosts, 400),
        ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
        ("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", .invalidVersion, 400),
        ("GET /\r\nHost: h\r\n\r\n", .invalidRequestLine, 400),
        ("G@T / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidMethod, 400),
        ("GET /a\u{7F}b HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
        ("GET /é HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
        ("GET a/b HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
        ("GET http:/// HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
        ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", .unsupportedVersion, 505),
        ("GET / HTTP/3.0\r\nHost: h\r\n\r\n", .unsupportedVersion, 505),
        ("GET / HTTP/0.9\r\nHost: h\r\n\r\n", .unsupportedVersion, 505),
        ("GET / HTTP/1.10\r\nHost: h\r\n\r\n", .invalidVersion, 400),
        ("GET / http/1.1\r\nHost: h\r\n\r\n", .invalidVersion, 400),
        ("GET / FOO\r\nHost: h\r\n\r\n", .invalidVersion, 400),
        ("GET / HTTP/1.1\r\n Host: h\r\n\r\n", .obsoleteLineFolding, 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n\tb\r\n\r\n", .obsoleteLineFolding, 400),
        ("GET / HTTP/1.1\r\nHost : h\r\n\r\n", .invalidHeaderName, 400),
        ("GET / HTTP/1.1\r\nHo(st: h\r\n\r\n", .invalidHeaderName, 400),
        ("GET / HTTP/1.1\r\n: h\r\n\r\n", .invalidHeaderName, 400),
        ("GET / HTTP/1.1\r\nNoColon\r\n\r\n", .invalidHeaderName, 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n", .invalidHeaderValue, 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", .invalidHeaderValue, 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{7F}\r\n\r\n", .invalidHeaderValue, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", .invalidContentLength, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 2\r\n\r\nab", .invalidContentLength, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", .invalidContentLength, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\na", .invalidContentLength, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x10\r\n\r\n", .invalidContentLength, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", .invalidContentLength, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", .invalidContentLength, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", .unsupportedTransferEncoding, 501),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferEncoding, 501),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", .invalidTransferEncoding, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\r\n\r\n", .invalidTransferEncoding, 400),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", .invalidTransferEncoding, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", .contentLengthWithTransferEncoding, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .invalidChunkSize, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", .invalidChunkSize, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", .invalidChunkSize, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1 x\r\n", .invalidChunkSize, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nabc\r\n", .invalidChunkTerminator, 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab", .invalidChunkTerminator, 400),
    ])
    func rejectsMalformedRequests(request: String, kind: HTTPParseError.Kind, status: Int) {
        let error = parseError(request)
        #expect(error?.kind == kind)
        #expect(error?.status.code == status)
        #expect(error?.reason.isEmpty == false)
    }

    @Test func rejectionsDoNotDependOnHowBytesArrive() {
        let request = Array("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n".utf8)
        for split in everySplit(request) {
            #expect(parseError(split)?.kind == .invalidHeaderValue)
        }
    }

    @Test func staysFailedAfterAnError() {
        var parser = HTTPRequestParser()
        parser.append(Array("BAD\r\n".utf8))
        #expect(throws: HTTPParseError(.invalidRequestLine)) { try parser.next() }
        parser.append(Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
        #expect(throws: HTTPParseError(.invalidRequestLine)) { try parser.next() }
        #expect(parser.error?.kind == .invalidRequestLine)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func reportsEarlierRequestsBeforeAFailingOne() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/9.9\r\n".utf8))
        #expect(try parser.next()?.head.path == "/1")
        #expect(throws: HTTPParseError(.unsupportedVersion)) { try parser.next() }
    }
}

@Suite struct HTTPRequestParserBodyTests {
    @Test func exposesTheHeadWhileTheBodyIsArriving() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("POST /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8))
        #expect(try parser.next() == nil)
        #expect(parser.headAwaitingBody?.headers["expect"] == "100-continue")
        parser.append(Array("abc".utf8))
        #expect(try parser.next()?.body == Array("abc".utf8))
        #expect(parser.headAwaitingBody == nil)
    }

    @Test func keepsBodyBytesOutOfTheNextRequest() throws {
        let requests = try parseAll("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nGET GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(requests.map(\.body) == [Array("GET ".utf8), []])
        #expect(requests.map(\.head.method) == ["POST", "GET"])
    }
}
