import Crypto
import Compression
import HTTPCore

/// One file of `Public/`, held in memory with everything needed to serve it: the bytes,
/// a gzip copy when that is smaller, and header lines serialized once.
struct StaticFile: Sendable {
    struct Representation: Sendable {
        var body: [UInt8]
        var etag: String
        /// Header lines for a 200 (`Content-Type`, `ETag`, `Last-Modified`, …).
        var okHeaders: [UInt8]
        /// Header lines for a 304 (validators and caching, no `Content-Type`).
        var notModifiedHeaders: [UInt8]
    }

    let contentType: String
    let modifiedSeconds: Int
    let identity: Representation
    let gzip: Representation?

    init(path: String, contents: [UInt8], modifiedSeconds: Int) {
        let fileName = path.split(separator: "/").last.map(String.init) ?? path
        let ext = fileName.split(separator: ".", omittingEmptySubsequences: false).count > 1
            ? String(fileName.split(separator: ".").last!) : ""
        let contentType = MediaType.forPathExtension(ext)
        self.contentType = contentType
        self.modifiedSeconds = modifiedSeconds
        let hash = Self.sha256Hex(contents).prefix(32)
        let isHTML = contentType.hasPrefix("text/html")
        // Pages must revalidate so a new deploy shows at once; assets may be reused briefly.
        let cacheControl = isHTML ? "no-cache" : "public, max-age=60"
        let lastModified = HTTPDate.string(forUnixSeconds: modifiedSeconds)
        var compressed: [UInt8] = []
        if MediaType.isCompressible(contentType) && contents.count > 256 {
            compressed = gzipCompress(contents)
        }
        let useGzip = !compressed.isEmpty && compressed.count < contents.count
        let vary = useGzip ? "Vary: Accept-Encoding\r\n" : ""
        func representation(body: [UInt8], etag: String, encoding: String?) -> Representation {
            var common = "ETag: \(etag)\r\nLast-Modified: \(lastModified)\r\nCache-Control: \(cacheControl)\r\n\(vary)"
            let notModified = Array(common.utf8)
            common = "Content-Type: \(contentType)\r\n" + common
            if let encoding { common += "Content-Encoding: \(encoding)\r\n" }
            return Representation(body: body, etag: etag, okHeaders: Array(common.utf8), notModifiedHeaders: notModified)
        }
        identity = representation(body: contents, etag: "\"\(hash)\"", encoding: nil)
        gzip = useGzip ? representation(body: compressed, etag: "\"\(hash)-gz\"", encoding: "gzip") : nil
    }

    /// The response to a GET or HEAD with these request headers.
    func response(to headers: HTTPHeaders) -> HTTPResponse {
        let chosen = (gzip != nil && acceptsGzip(headers["Accept-Encoding"])) ? gzip! : identity
        if isNotModified(headers) {
            var response = HTTPResponse(status: .notModified)
            response.preserializedHeaders = chosen.notModifiedHeaders
            return response
        }
        var response = HTTPResponse(status: .ok, body: chosen.body)
        response.preserializedHeaders = chosen.okHeaders
        return response
    }

    /// RFC 9110 §13.2.2: `If-None-Match` decides when present; otherwise `If-Modified-Since`.
    private func isNotModified(_ headers: HTTPHeaders) -> Bool {
        if let tags = headers["If-None-Match"] {
            return ifNoneMatch(tags, matches: identity.etag) || (gzip.map { ifNoneMatch(tags, matches: $0.etag) } ?? false)
        }
        if let since = headers["If-Modified-Since"], let seconds = HTTPDate.unixSeconds(from: since) {
            return modifiedSeconds <= seconds
        }
        return false
    }

    static func sha256Hex(_ bytes: [UInt8]) -> String { SHA256.hexDigest(bytes) }
}
