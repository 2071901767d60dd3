import Server
import Testing
import TestSupport
@testable import App

@Suite struct PageRoutesTests {
    @Test(arguments: [
        ("/calc", "calc"), ("/calc/", "calc"), ("/draw/abc123", "draw"), ("/screen/abc123", "screen"),
        ("/watch/Q7-x", "watch"), ("/docs/", "docs"), ("/index.html", "home"),
        ("/draw/abc123/round/1", "certificate"), ("/draw/abc123/round/987654321", "certificate"),
    ])
    func theProductsCleanRoutesServeTheirPage(path: String, title: String) throws {
        let server = try TestServer(pages: Router())
        defer { server.stop() }
        let response = try server.get(path)
        #expect(response.status == 200, "\(path)")
        #expect(response.text.contains("<title>\(title)</title>"), "\(path)")
    }

    @Test(arguments: ["/calc/x", "/draw/", "/draw/a/b", "/screen/" + String(repeating: "a", count: 65),
                      "/draw/a/round/0", "/draw/a/round/01", "/draw/a/round/1234567890", "/draw/a/round/x", "/screen/a/round/1",
                      "/draw/a/rounds/1"])
    func otherPathsUnderThePageNamesAreNotPages(path: String) throws {
        let server = try TestServer(pages: Router())
        defer { server.stop() }
        #expect(try server.get(path).status == 404, "\(path)")
    }
}
