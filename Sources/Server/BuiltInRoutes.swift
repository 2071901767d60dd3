import HTTPCore

/// Pages and files from `Public/`: the router's clean page routes first, then the file tree.
enum BuiltInRoutes {
    static func respond(to head: HTTPRequestHead, context: ServerContext) -> HTTPResponse {
        let segments: [String]
        do {
            segments = try SafePath.resolve(head.path)
        } catch {
            return .text(error.status)
        }
        let file = context.router.pageFile(for: segments).flatMap(context.staticFiles.file(for:)) ?? context.staticFiles.file(for: segments)
        guard let file else { return .text(.notFound) }
        guard head.method == "GET" || head.method == "HEAD" else { return .methodNotAllowed(allow: ["GET", "HEAD"]) }
        return file.response(to: head.headers)
    }
}
