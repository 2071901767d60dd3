import JSON
import Posix
import Testing
@testable import App
import TestSupport

/// Screen branding over REST on a real server: the host sets a title, an accent colour and a
/// logo (PNG/JPEG/WebP by their bytes, SVG refused); anyone reads them; a restart keeps them.
@Suite struct BrandingAPITests {
    static let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + [UInt8](repeating: 7, count: 40)
    static let webp: [UInt8] = Array("RIFF".utf8) + [40, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 1, count: 28)

    @Test func theHostBrandsTheScreenAndPagesReadIt() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(30))
        defer { server.stop() }
        let path = "/api/draws/\(DrawTestServer.code)"
        #expect(try server.request("GET", path + "/branding").json == .object(["title": .null, "accent": .null, "logo": .null]))
        #expect(try server.request("GET", path + "/logo").status == 404)

        #expect(try server.request("PUT", path + "/branding", body: #"{"title":"Gala"}"#).status == 401)
        let saved = try server.request("PUT", path + "/branding", key: DrawTestServer.hostKey, body: ##"{"title":"  Gala 2026 年会 ","accent":"#C81"}"##)
        #expect(saved.status == 200 && saved.json["title"] == .string("Gala 2026 年会") && saved.json["accent"] == .string("#cc8811"))
        for (body, code) in [(#"{"accent":"red"}"#, "bad_accent"), (##"{"accent":"#12345"}"##, "bad_accent"),
                             (##"{"accent":"#123456;background:url(x)"}"##, "bad_accent"),
                             ("{\"title\":\"\(String(repeating: "x", count: 101))\"}", "bad_title"), (#"{"title":"a\u0007b"}"#, "bad_title"),
                             (#"{"title":5}"#, "bad_title")] {
            let refused = try server.request("PUT", path + "/branding", key: DrawTestServer.hostKey, body: body)
            #expect(refused.status == 400 && refused.errorCode == code, "\(body)")
        }

        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.utf8)
        for bytes in [svg, Array("GIF89a....".utf8), []] {
            let refused = try server.request("PUT", path + "/logo", key: DrawTestServer.hostKey, body: String(decoding: bytes, as: UTF8.self),
                                             headers: ["Content-Type: image/png"])
            #expect(refused.status == 415 && refused.errorCode == "bad_logo")
        }
        let big = Self.png + [UInt8](repeating: 0, count: 256 * 1024)
        #expect(try server.requestBytes("PUT", path + "/logo", key: DrawTestServer.hostKey, body: big).status == 413)
        #expect(try server.requestBytes("PUT", path + "/logo", body: Self.png).status == 401)

        let logo = try server.requestBytes("PUT", path + "/logo", key: DrawTestServer.hostKey, body: Self.webp, type: "image/png")
        #expect(logo.status == 200)
        let link = try #require(logo.json["logo"]?.stringValue)
        #expect(link.hasPrefix(path + "/logo?v="))
        let image = try server.request("GET", link)
        #expect(image.status == 200 && image.body == Self.webp)
        #expect(image.headers["Content-Type"] == "image/webp", "the type comes from the bytes, not the upload's header")
        #expect(image.headers["X-Content-Type-Options"] == "nosniff")

        try server.restart()
        let kept = try server.request("GET", path + "/branding").json
        #expect(kept["title"] == .string("Gala 2026 年会") && kept["logo"]?.stringValue == link)
        #expect(try server.request("DELETE", path + "/logo", key: DrawTestServer.hostKey).json["logo"] == .null)
        #expect(try server.request("GET", path + "/logo").status == 404)
        #expect(try server.request("PUT", path + "/branding", key: DrawTestServer.hostKey, body: #"{"accent":null,"title":""}"#).json
            == .object(["title": .null, "accent": .null, "logo": .null]))
    }
}

extension DrawEndpoint {
    /// One request with a binary body on a fresh connection.
    func requestBytes(_ method: String, _ path: String, key: String? = nil, body: [UInt8], type: String = "application/octet-stream") throws -> RawResponse {
        let socket = try BlockingSocket(host: "127.0.0.1", port: port, timeout: .seconds(120))
        var head = "\(method) \(path) HTTP/1.1\r\nHost: test\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n"
        if let key { head += "Authorization: Bearer \(key)\r\n" }
        try socket.send(Array((head + "\r\n").utf8) + body)
        var reader = ResponseReader(socket: socket)
        return try reader.next(isHead: false)
    }
}
