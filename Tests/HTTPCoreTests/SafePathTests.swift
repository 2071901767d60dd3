import Testing
import HTTPCore

@Suite struct SafePathTests {
    @Test(arguments: [
        ("/", []),
        ("/index.html", ["index.html"]),
        ("//css///app.css", ["css", "app.css"]),
        ("/js/lib/", ["js", "lib"]),
        ("/a%20b/%E4%B8%80.txt", ["a b", "一.txt"]),
        ("/...", ["..."]),
        ("/.well-known/x", [".well-known", "x"]),
        ("/a+b", ["a+b"]),
    ] as [(String, [String])])
    func resolvesToDecodedSegments(path: String, segments: [String]) throws {
        #expect(try SafePath.resolve(path) == segments)
    }

    @Test(arguments: [
        ("", SafePathError.Kind.notAbsolute, 400),
        ("a/b", .notAbsolute, 400),
        ("/..", .dotSegment, 404),
        ("/a/../b", .dotSegment, 404),
        ("/./a", .dotSegment, 404),
        ("/%2e%2e/etc/passwd", .dotSegment, 404),
        ("/%2E%2E/x", .dotSegment, 404),
        ("/.%2e/x", .dotSegment, 404),
        ("/%2e/x", .dotSegment, 404),
        ("/a%2fb", .encodedSlash, 404),
        ("/a%2F..%2Fb", .encodedSlash, 404),
        ("/a\\b", .backslash, 404),
        ("/a%5cb", .backslash, 404),
        ("/a%00b", .controlCharacter, 400),
        ("/a%0d%0a", .controlCharacter, 400),
        ("/a%7f", .controlCharacter, 400),
        ("/a%C2%85", .controlCharacter, 400),
        ("/a%", .invalidPercentEncoding, 400),
        ("/a%2", .invalidPercentEncoding, 400),
        ("/a%zz", .invalidPercentEncoding, 400),
        ("/a%ff", .invalidUTF8, 400),
        ("/%C0%AE%C0%AE/x", .invalidUTF8, 400),
    ] as [(String, SafePathError.Kind, Int)])
    func rejectsPathsThatCouldLeaveTheRoot(path: String, kind: SafePathError.Kind, status: Int) {
        #expect(throws: SafePathError(kind)) { try SafePath.resolve(path) }
        #expect(SafePathError(kind).status.code == status)
    }
}
