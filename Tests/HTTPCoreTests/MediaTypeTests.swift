import Testing
import HTTPCore

@Suite struct MediaTypeTests {
    @Test(arguments: [
        ("html", "text/html; charset=utf-8"),
        ("css", "text/css; charset=utf-8"),
        ("js", "text/javascript; charset=utf-8"),
        ("mjs", "text/javascript; charset=utf-8"),
        ("json", "application/json"),
        ("svg", "image/svg+xml"),
        ("png", "image/png"),
        ("ico", "image/x-icon"),
        ("webmanifest", "application/manifest+json"),
        ("woff2", "font/woff2"),
        ("txt", "text/plain; charset=utf-8"),
        ("csv", "text/csv; charset=utf-8"),
        ("webp", "image/webp"),
        ("jpg", "image/jpeg"),
        (".PNG", "image/png"),
        ("Html", "text/html; charset=utf-8"),
        ("exe", "application/octet-stream"),
        ("", "application/octet-stream"),
    ])
    func mapsExtensionsToContentTypes(ext: String, type: String) {
        #expect(MediaType.forPathExtension(ext) == type)
    }

    @Test func compressesTextButNotImages() {
        #expect(MediaType.isCompressible(MediaType.forPathExtension("js")))
        #expect(MediaType.isCompressible(MediaType.forPathExtension("svg")))
        #expect(!MediaType.isCompressible(MediaType.forPathExtension("png")))
        #expect(!MediaType.isCompressible(MediaType.forPathExtension("woff2")))
    }
}
