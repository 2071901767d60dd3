import Testing
import HTTPCore

@Suite struct HTTPResponseHeadTests {
    @Test func serializesStatusLineFieldsAndEmptyLine() {
        let head = HTTPResponseHead(status: .notFound, headers: ["Content-Length": "0", "Server": "tombola"])
        #expect(String(decoding: head.serialized(), as: UTF8.self)
            == "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nServer: tombola\r\n\r\n")
    }

    @Test func appendsToExistingBytes() {
        var bytes = Array("x".utf8)
        HTTPResponseHead(status: .noContent).serialize(into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "xHTTP/1.1 204 No Content\r\n\r\n")
    }

    @Test func dropsLineBreaksSoValuesCannotSplitTheResponse() {
        let head = HTTPResponseHead(status: .found, headers: ["Location": "/a\r\nSet-Cookie: x\u{0}"])
        #expect(String(decoding: head.serialized(), as: UTF8.self)
            == "HTTP/1.1 302 Found\r\nLocation: /aSet-Cookie: x\r\n\r\n")
    }

    @Test(arguments: [101, 200, 204, 206, 301, 304, 400, 401, 403, 404, 405, 408, 409, 411, 413, 414, 415,
                      422, 426, 429, 431, 500, 501, 503, 505])
    func knowsTheReasonPhraseOfEveryStatusWeSend(code: Int) {
        let status = HTTPStatus(code: code)
        #expect(status.reasonPhrase != "Unknown")
        #expect(HTTPStatus.known.filter { $0.code == code }.count == 1)
    }

    @Test func statusesWithoutBodies() {
        #expect(HTTPStatus.notModified.forbidsBody)
        #expect(HTTPStatus.noContent.forbidsBody)
        #expect(HTTPStatus.switchingProtocols.forbidsBody)
        #expect(!HTTPStatus.ok.forbidsBody)
        #expect(HTTPStatus(code: 599).reasonPhrase == "Unknown")
    }
}
