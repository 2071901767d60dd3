/// Content types for the files under `Public/`.
public enum MediaType {
    public static let octetStream = "application/octet-stream"

    private static let byExtension: [String: String] = [
        "html": "text/html; charset=utf-8",
        "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8",
        "json": "application/json",
        "map": "application/json",
        "webmanifest": "application/manifest+json",
        "svg": "image/svg+xml",
        "png": "image/png",
        "ico": "image/x-icon",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "webp": "image/webp",
        "woff2": "font/woff2",
        "woff": "font/woff",
        "txt": "text/plain; charset=utf-8",
        "csv": "text/csv; charset=utf-8",
        "xml": "application/xml",
        "wasm": "application/wasm",
        "pdf": "application/pdf",
    ]

    /// The Content-Type for a file extension (`"css"` or `".css"`, any case).
    public static func forPathExtension(_ ext: String) -> String {
        let key = (ext.hasPrefix(".") ? String(ext.dropFirst()) : ext).lowercased()
        return byExtension[key] ?? octetStream
    }

    /// Whether compressing this type is worthwhile (text formats, SVG, JSON; not images or fonts).
    public static func isCompressible(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";").first.map { String($0).lowercased() } ?? ""
        return type.hasPrefix("text/") || type == "image/svg+xml" || type == "application/json"
            || type == "application/manifest+json" || type == "application/xml" || type == "application/wasm"
    }
}
