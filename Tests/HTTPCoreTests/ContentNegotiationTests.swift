import Testing
import HTTPCore

@Suite struct ContentNegotiationTests {
    @Test(arguments: [
        (nil, false),
        ("", false),
        ("gzip", true),
        ("GZIP", true),
        ("gzip, deflate, br", true),
        ("deflate, br", false),
        ("gzip;q=0", false),
        ("gzip; q=0.000", false),
        ("gzip;q=0.001", true),
        ("gzip;Q=1.0", true),
        ("*", true),
        ("*;q=0", false),
        ("br, *;q=0.1", true),
        ("gzip;q=0, *", false),
        ("*;q=0, gzip", true),
        ("x-gzip", true),
        ("identity", false),
        ("gzip;q=2", false),
        ("gzip;q=abc", false),
    ] as [(String?, Bool)])
    func decidesWhetherGzipIsAccepted(header: String?, accepted: Bool) {
        #expect(acceptsGzip(header) == accepted)
    }

    @Test(arguments: [
        (nil, "\"abc\"", false),
        ("\"abc\"", "\"abc\"", true),
        ("W/\"abc\"", "\"abc\"", true),
        ("\"abc\"", "W/\"abc\"", true),
        ("\"xyz\", \"abc\"", "\"abc\"", true),
        ("\"a,b\", \"c\"", "\"a,b\"", true),
        ("\"a,b\"", "\"a\"", false),
        ("*", "\"abc\"", true),
        ("\"abd\"", "\"abc\"", false),
        ("abc", "\"abc\"", false),
        ("\"abc", "\"abc\"", false),
        ("\"abc\" \"def\"", "\"abc\"", false),
        ("", "\"abc\"", false),
        (" , \"abc\" ,", "\"abc\"", true),
    ] as [(String?, String, Bool)])
    func comparesEntityTagsWeakly(header: String?, etag: String, matches: Bool) {
        #expect(ifNoneMatch(header, matches: etag) == matches)
    }
}
