import Glibc
import HTTPCore
import Testing
@testable import Server
import TestSupport

@Suite struct StaticFileServingTests {
    @Test func rootServesIndexWithSecurityHeadersDateAndServer() throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try server.get("/")
        #expect(response.status == 200)
        #expect(response.text.contains("<title>home</title>"))
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.headers["Content-Security-Policy"] == SecurityHeaders.contentSecurityPolicy)
        #expect(response.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response.headers["Referrer-Policy"] == "no-referrer")
        #expect(response.headers["Server"] == "tombola")
        #expect(response.headers["Date"].flatMap(HTTPDate.unixSeconds(from:)) != nil)
        #expect(response.headers["Cache-Control"] == "no-cache")
        #expect(response.headers["Last-Modified"].flatMap(HTTPDate.unixSeconds(from:)) != nil)
    }

    @Test func connectSourcesWidenOnlyConnectSrc() throws {
        let server = try TestServer(configure: { $0.connectSources = ["https://api.drand.sh", "http://127.0.0.1:9"] })
        defer { server.stop() }
        let policy = try #require(try server.get("/").headers["Content-Security-Policy"])
        #expect(policy.contains("connect-src 'self' ws: wss: https://api.drand.sh http://127.0.0.1:9;"))
        #expect(policy.contains("default-src 'self';") && policy.contains("script-src 'self';"))
        #expect(policy != SecurityHeaders.contentSecurityPolicy)
    }

    @Test(arguments: [
        ("/calc", "calc"), ("/calc/", "calc"), ("/room/abc", "draw"), ("/docs/", "docs"), ("/docs", "docs"),
        ("/index.html", "home"),
    ])
    func pageResolversAndDirectoriesServeTheirPage(path: String, title: String) throws {
        var router = Router()
        router.pages { segments in
            switch segments.first {
            case "calc" where segments.count == 1: ["calc.html"]
            case "room" where segments.count == 2: ["draw.html"]
            default: nil
            }
        }
        let server = try TestServer(router: router)
        defer { server.stop() }
        let response = try server.get(path)
        #expect(response.status == 200, "\(path)")
        #expect(response.text.contains("<title>\(title)</title>"), "\(path)")
    }

    @Test(arguments: [
        ("/js/lib/dom.mjs", "text/javascript; charset=utf-8"), ("/img/logo.svg", "image/svg+xml"),
        ("/app.webmanifest", "application/manifest+json"), ("/fonts/a.woff2", "font/woff2"),
        ("/img/a.png", "image/png"), ("/favicon.ico", "image/x-icon"), ("/data.json", "application/json"),
        ("/robots.txt", "text/plain; charset=utf-8"), ("/css/app.css", "text/css; charset=utf-8"),
    ])
    func filesCarryTheirMediaTypeAndShortCaching(path: String, type: String) throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try server.get(path)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == type)
        #expect(response.headers["Cache-Control"] == "public, max-age=60")
    }

    @Test func matchingETagGets304WithoutBody() throws {
        let server = try TestServer()
        defer { server.stop() }
        let first = try server.get("/css/app.css")
        let etag = try #require(first.headers["ETag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
        let second = try server.get("/css/app.css", headers: ["If-None-Match: \"other\", \(etag)"])
        #expect(second.status == 304)
        #expect(second.body.isEmpty)
        #expect(second.headers["ETag"] == etag)
        let stale = try server.get("/css/app.css", headers: ["If-None-Match: \"nope\""])
        #expect(stale.status == 200)
        let since = try server.get("/css/app.css", headers: ["If-Modified-Since: \(first.headers["Last-Modified"]!)"])
        #expect(since.status == 304)
    }

    @Test func gzipIsServedOnlyWhenAcceptedAndDecodesToTheFile() throws {
        let server = try TestServer()
        defer { server.stop() }
        let plain = try server.get("/css/app.css")
        #expect(plain.headers["Content-Encoding"] == nil)
        #expect(plain.headers["Vary"] == "Accept-Encoding")
        #expect(plain.text == TestServer.defaultFiles["css/app.css"])
        let zipped = try server.get("/css/app.css", headers: ["Accept-Encoding: br, gzip;q=0.8"])
        #expect(zipped.headers["Content-Encoding"] == "gzip")
        #expect(zipped.headers["Vary"] == "Accept-Encoding")
        #expect(zipped.body.count < plain.body.count)
        #expect(Array(zipped.body.prefix(2)) == [0x1F, 0x8B])
        #expect(zipped.headers["ETag"] != plain.headers["ETag"])
        let refused = try server.get("/css/app.css", headers: ["Accept-Encoding: gzip;q=0"])
        #expect(refused.headers["Content-Encoding"] == nil)
    }

    @Test(arguments: [
        "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/css/..%2fsecret.txt", "/css%2f..%2fsecret.txt",
        "/css/%2e%2e/%2e%2e/secret.txt", "/..%5csecret.txt", "/css\\..\\secret.txt", "/%00", "/index.html%00.txt",
        "/escape/secret.txt", "/escape-dir/secret.txt", "/.hidden", "/%zz",
    ])
    func pathsOutsideThePublicRootAreRefused(path: String) throws {
        let outside = try makeTemporaryDirectory()
        defer { removeTree(outside) }
        try writeFile(outside + "/secret.txt", "TOP SECRET")
        let server = try TestServer(files: TestServer.defaultFiles.merging([".hidden": "TOP SECRET"]) { a, _ in a })
        defer { server.stop() }
        symlink(outside + "/secret.txt", server.publicDirectory + "/escape")
        symlink(outside, server.publicDirectory + "/escape-dir")
        try server.server.reloadStaticFiles()
        let socket = try server.connect()
        try socket.send("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
        var reader = ResponseReader(socket: socket)
        let response = try reader.next()
        #expect([400, 404].contains(response.status), "\(path) → \(response.status)")
        #expect(!response.text.contains("TOP SECRET"))
    }

    @Test func directoriesWithoutIndexAreNotListed() throws {
        let server = try TestServer()
        defer { server.stop() }
        for path in ["/css", "/css/", "/js/lib/"] {
            let response = try server.get(path)
            #expect(response.status == 404, "\(path)")
            #expect(!response.text.contains("app.css"))
        }
    }

    @Test func reloadPicksUpChangedFilesAndNewETags() throws {
        let server = try TestServer()
        defer { server.stop() }
        let before = try server.get("/robots.txt")
        try writeFile(server.publicDirectory + "/robots.txt", "Disallow: /\n")
        try server.server.reloadStaticFiles()
        let after = try server.get("/robots.txt")
        #expect(after.text == "Disallow: /\n")
        #expect(after.headers["ETag"] != before.headers["ETag"])
    }

    @Test func watcherNoticesNewFilesWithoutARestart() throws {
        let server = try TestServer(configure: { $0.staticReloadInterval = .milliseconds(200) })
        defer { server.stop() }
        #expect(try server.get("/new.txt").status == 404)
        try writeFile(server.publicDirectory + "/new.txt", "fresh")
        #expect(try waitUntil(timeout: .seconds(10)) { try server.get("/new.txt").status == 200 })
    }

    @Test func aPageBundleIsServedWithoutADirectoryAndItsDirectoriesServeTheirIndex() throws {
        let bundle = PageBundle(files: [("index.html", Array("<!doctype html><title>built in</title>".utf8)),
                                        ("docs/index.html", Array("<!doctype html><title>docs</title>".utf8)),
                                        ("js/a/b.js", Array("export const b = 1\n".utf8))],
                                modifiedSeconds: 1_700_000_000)
        let server = try TestServer(configure: { $0.publicDirectory = nil; $0.pageBundle = bundle })
        defer { server.stop() }
        #expect(try server.get("/").text == "<!doctype html><title>built in</title>")
        #expect(try server.get("/docs/").text == "<!doctype html><title>docs</title>")
        let script = try server.get("/js/a/b.js")
        #expect(script.status == 200 && script.text == "export const b = 1\n")
        #expect(script.headers["Last-Modified"].flatMap(HTTPDate.unixSeconds(from:)) == 1_700_000_000)
        // Nothing of the temporary directory TestServer made, and no listing of a directory.
        #expect(try server.get("/robots.txt").status == 404)
        #expect(try server.get("/js/a/").status == 404)
        try server.server.reloadStaticFiles()
        #expect(try server.get("/js/a/b.js").status == 200)
    }

    @Test func startFailsClearlyWithoutAPublicDirectory() {
        let server = HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, publicDirectory: "/nonexistent/tombola"))
        #expect(throws: ServerError.self) { try server.start() }
    }
}
