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
        #expect(try server.request("GET", path + "/branding").json == .object(["title": .null, "accent": .null, "logo": .null, "media": .object([:])]))
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
            == .object(["title": .null, "accent": .null, "logo": .null, "media": .object([:])]))
    }
}

/// A prize tier's picture and music over REST (issue #26): checked by their bytes, stored per
/// tier, named in the branding's `media` map, kept over a restart, removed again.
@Suite struct PrizeMediaAPITests {
    @Test func theHostGivesATierAPictureAndMusicAndPagesReadThem() throws {
        let server = try DrawTestServer(slowDown: .milliseconds(30))
        defer { server.stop() }
        let path = "/api/draws/\(DrawTestServer.code)"
        let host = DrawTestServer.hostKey
        #expect(try server.request("GET", path + "/prizes/0/picture").status == 404)
        #expect(try server.requestBytes("PUT", path + "/prizes/0/picture", body: BrandingAPITests.png).status == 401)
        for bad in ["100", "01", "-1", "x"] {
            #expect(try server.requestBytes("PUT", path + "/prizes/\(bad)/picture", key: host, body: BrandingAPITests.png).status == 404, "\(bad)")
        }
        #expect(try server.requestBytes("PUT", path + "/prizes/0/poster", key: host, body: BrandingAPITests.png).status == 404)
        let svg = Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)
        let refused = try server.requestBytes("PUT", path + "/prizes/0/picture", key: host, body: svg, type: "image/png")
        #expect(refused.status == 415 && refused.errorCode == "bad_media")
        let notMusic = try server.requestBytes("PUT", path + "/prizes/0/music", key: host, body: BrandingAPITests.png, type: "audio/mpeg")
        #expect(notMusic.status == 415 && notMusic.errorCode == "bad_media", "a picture is not music")
        let tooBig = try server.requestBytes("PUT", path + "/prizes/0/picture", key: host, body: BrandingAPITests.png + [UInt8](repeating: 0, count: 256 * 1024))
        #expect(tooBig.status == 413)

        let picture = try server.requestBytes("PUT", path + "/prizes/2/picture", key: host, body: BrandingAPITests.webp, type: "image/png")
        #expect(picture.status == 200)
        let pictureURL = try #require(picture.json["media"]?["picture-2"]?.stringValue)
        #expect(pictureURL.hasPrefix(path + "/prizes/2/picture?v="))
        // Music larger than the usual 1 MiB body limit: the host may send up to 4 MiB.
        let ogg = Array("OggS".utf8) + [UInt8](repeating: 3, count: 2 * 1024 * 1024)
        #expect(try server.requestBytes("PUT", path + "/prizes/2/music", body: ogg).status == 413, "no key: the usual limit")
        let music = try server.requestBytes("PUT", path + "/prizes/2/music", key: host, body: ogg, type: "audio/ogg")
        #expect(music.status == 200)
        let musicURL = try #require(music.json["media"]?["music-2"]?.stringValue)
        let huge = Array("OggS".utf8) + [UInt8](repeating: 3, count: 4 * 1024 * 1024)
        #expect(try server.requestBytes("PUT", path + "/prizes/2/music", key: host, body: huge).status == 413)

        let image = try server.request("GET", pictureURL)
        #expect(image.status == 200 && image.body == BrandingAPITests.webp && image.headers["Content-Type"] == "image/webp")
        let song = try server.request("GET", musicURL)
        #expect(song.status == 200 && song.body == ogg && song.headers["Content-Type"] == "audio/ogg")
        #expect(song.headers["Cache-Control"] == "public, max-age=31536000, immutable")

        // The title's own change keeps the media; a restart keeps both.
        _ = try server.request("PUT", path + "/branding", key: host, body: #"{"title":"Gala"}"#)
        try server.restart()
        let kept = try server.request("GET", path + "/branding").json
        #expect(kept["media"] == .object(["picture-2": .string(pictureURL), "music-2": .string(musicURL)]))
        #expect(try server.request("GET", musicURL).body == ogg)
        #expect(try server.request("DELETE", path + "/prizes/2/picture", key: host).json["media"] == .object(["music-2": .string(musicURL)]))
        #expect(try server.request("GET", path + "/prizes/2/picture").status == 404)
    }

    @Test func musicIsKnownByItsFirstBytes() {
        #expect(PrizeMediaRules.audioType(Array("ID3\u{4}".utf8)) == "audio/mpeg")
        #expect(PrizeMediaRules.audioType([0xff, 0xfb, 0x90, 0x64]) == "audio/mpeg")
        #expect(PrizeMediaRules.audioType([0xff, 0xe9, 0x90, 0x64]) == nil, "a reserved MPEG version")
        #expect(PrizeMediaRules.audioType(Array("OggS\0".utf8)) == "audio/ogg")
        #expect(PrizeMediaRules.audioType([0, 0, 0, 32] + Array("ftypM4A ".utf8)) == "audio/mp4")
        #expect(PrizeMediaRules.audioType([0, 0, 0, 32] + Array("ftypheic".utf8)) == nil)
        #expect(PrizeMediaRules.audioType(Array("RIFF....WAVE".utf8)) == nil)
        #expect(PrizeMediaSlot(tier: "99", kind: "music")?.name == "music-99")
        #expect(PrizeMediaSlot(name: "picture-0") == PrizeMediaSlot(tier: "0", kind: "picture"))
        #expect(PrizeMediaSlot(tier: "007", kind: "picture") == nil)
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
