import Server
import Testing
import TestSupport
@testable import App

@Suite struct PageRoutesTests {
    @Test(arguments: [
        ("/calc", "calc"), ("/calc/", "calc"), ("/draw/abc123", "draw"), ("/screen/abc123", "screen"),
        ("/watch/Q7-x", "watch"), ("/docs/", "docs"), ("/index.html", "home"),
    ])
    func theProductsCleanRoutesServeTheirPage(path: String, title: String) throws {
        let server = try TestServer(pages: Router())
        defer { server.stop() }
        let response = try server.get(path)
        #expect(response.status == 200, "\(path)")
        #expect(response.text.contains("<title>\(title)</title>"), "\(path)")
    }

    @Test(arguments: ["/calc/x", "/draw/", "/draw/a/b", "/screen/" + String(repeating: "a", count: 65)])
    func otherPathsUnderThePageNamesAreNotPages(path: String) throws {
        let server = try TestServer(pages: Router())
        defer { server.stop() }
        #expect(try server.get(path).status == 404, "\(path)")
    }
}
