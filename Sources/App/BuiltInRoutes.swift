import HTTPCore

/// Pages and files from `Public/`: clean page routes first, then the file tree.
enum BuiltInRoutes {
    /// Clean routes and the page each serves: `/calc` → `calc.html`, `/draw/<code>` → `draw.html`.
    static func pageFile(for segments: [String]) -> [String]? {
        switch segments.count {
        case 1 where segments[0] == "calc": return ["calc.html"]
        case 2 where ["draw", "screen", "watch"].contains(segments[0]) && isDrawCode(segments[1]):
            return [segments[0] + ".html"]
        default: return nil
        }
    }

    /// Draw codes are short and unambiguous; anything else under `/draw/` is not a page.
    static func isDrawCode(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    static func respond(to head: HTTPRequestHead, context: ServerContext) -> HTTPResponse {
        let segments: [String]
        do {
            segments = try SafePath.resolve(head.path)
        } catch {
            return .text(error.status)
        }
        let file = pageFile(for: segments).flatMap(context.staticFiles.file(for:)) ?? context.staticFiles.file(for: segments)
        guard let file else { return .text(.notFound) }
        guard head.method == "GET" || head.method == "HEAD" else { return .methodNotAllowed(allow: ["GET", "HEAD"]) }
        return file.response(to: head.headers)
    }
}
