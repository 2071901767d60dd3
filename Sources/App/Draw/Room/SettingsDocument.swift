import Compression
import HTTPCore
import Locking
import Server

/// A draw's full settings as `GET /api/draws/<code>/config` serves them: the canonical JSON
/// text, its gzip copy, and the entity tag (the settings `hash` the `state` summary carries),
/// so a page that already holds these settings revalidates with a 304 and no body.
struct SettingsDocument: Sendable {
    let body: [UInt8]
    let gzip: [UInt8]?
    /// The SHA-256 hex of `body`, as in the summary's `hash`.
    let hash: String

    init(text: String, hash: String) {
        body = Array(text.utf8)
        let compressed = body.count > 256 ? gzipCompress(body) : []
        gzip = !compressed.isEmpty && compressed.count < body.count ? compressed : nil
        self.hash = hash
    }

    var etag: String { "\"\(hash)\"" }

    /// The answer to a GET or HEAD with these request headers: 304 when the page's copy is
    /// current, else the body (gzip when the page takes it). Pages must revalidate (`no-cache`):
    /// the settings change with every configure.
    func response(to headers: HTTPHeaders) -> HTTPResponse {
        let useGzip = gzip != nil && acceptsGzip(headers["Accept-Encoding"])
        var response: HTTPResponse
        if ifNoneMatch(headers["If-None-Match"], matches: etag) {
            response = HTTPResponse(status: .notModified)
        } else {
            response = HTTPResponse.json(.ok, useGzip ? gzip! : body)
            if useGzip { response.headers.add(name: "Content-Encoding", value: "gzip") }
        }
        response.headers.add(name: "ETag", value: etag)
        response.headers.add(name: "Cache-Control", value: "no-cache")
        if gzip != nil { response.headers.add(name: "Vary", value: "Accept-Encoding") }
        return response
    }
}

/// The latest `SettingsDocument` of one room: made on the first download after a configure and
/// shared by the rest. Thread-safe (a mutex around one value); two first downloads racing both
/// build the same document, and the last one stored wins.
final class SettingsDocumentCache: Sendable {
    private let latest = Lock<SettingsDocument?>(nil)

    func document(text: String, hash: String) -> SettingsDocument {
        if let cached = latest.withLock({ $0 }), cached.hash == hash { return cached }
        let document = SettingsDocument(text: text, hash: hash)
        latest.withLock { $0 = document }
        return document
    }
}
