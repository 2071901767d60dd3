import Testing
import HTTPCore

@Suite struct HTTPHeadersTests {
    @Test func looksUpNamesIgnoringCaseAndKeepsOrder() {
        var headers = HTTPHeaders()
        headers.add(name: "Set-Cookie", value: "a")
        headers.add(name: "Content-Type", value: "text/plain")
        headers.add(name: "set-cookie", value: "b")
        #expect(headers["SET-COOKIE"] == "a")
        #expect(headers.values(for: "Set-cookie") == ["a", "b"])
        #expect(headers["missing"] == nil)
        #expect(headers.map(\.name) == ["Set-Cookie", "Content-Type", "set-cookie"])
        #expect(headers.count == 3)
    }

    @Test func namesDifferingOnlyInLengthOrOneLetterDoNotMatch() {
        let headers: HTTPHeaders = ["Content-Length": "1", "X-Forwarded-For": "10.0.0.1"]
        #expect(headers.values(for: "content-length") == ["1"])
        #expect(headers.values(for: "content-lengths").isEmpty)
        #expect(headers.values(for: "content-lengtH") == ["1"])
        #expect(headers.values(for: "content_length").isEmpty)
        #expect(headers.values(for: "x-forwarded-for") == ["10.0.0.1"])
        // Only ASCII letters fold: "[" (0x5B) is not "{" (0x7B), and non-ASCII never matches ASCII.
        #expect(!headers.contains(name: "X-Forwarded-Fo["))
        #expect(!headers.contains(name: "Content-Lengt\u{E9}"))
        // A substring (not a native string) is compared the same way.
        #expect(headers["Content-Length!".dropLast().description] == "1")
    }

    @Test(arguments: [
        ("keep-alive, Upgrade", "upgrade", true),
        ("keep-alive,upgrade", "Upgrade", true),
        ("  close  ", "close", true),
        ("keep-alive", "close", false),
        ("upgrade-insecure", "upgrade", false),
        ("", "upgrade", false),
    ])
    func findsTokensInCommaLists(value: String, token: String, found: Bool) {
        let headers: HTTPHeaders = ["Connection": value]
        #expect(headers.contains(token: token, in: "connection") == found)
    }

    @Test func findsTokensAcrossRepeatedFields() {
        let headers = HTTPHeaders([(name: "Connection", value: "keep-alive"), (name: "connection", value: "Upgrade")])
        #expect(headers.contains(token: "upgrade", in: "Connection"))
        #expect(headers.listElements(for: "Connection") == ["keep-alive", "Upgrade"])
    }

    @Test func replacesAndRemovesEveryFieldOfAName() {
        var headers: HTTPHeaders = ["A": "1", "a": "2", "B": "3"]
        headers.replaceOrAdd(name: "A", value: "9")
        #expect(headers.values(for: "a") == ["9"])
        headers.remove(name: "b")
        #expect(!headers.contains(name: "B"))
        #expect(headers == ["A": "9"])
    }
}
