import Server
import TestSupport
@testable import App

extension TestServer {
    /// A server with the routes `AppRoutes` installs for `configure`d options (the product's pages,
    /// the calculator, the echo endpoint when asked), plus `extra`.
    convenience init(webSockets configure: (inout AppConfiguration) -> Void = { _ in },
                     extra: (inout Router) -> Void = { _ in }) throws {
        var configuration = AppConfiguration()
        configure(&configuration)
        var router = AppRoutes.router(for: configuration)
        extra(&router)
        try self.init(configure: { server in
            var app = AppConfiguration()
            app.server = server
            configure(&app)
            server = app.server
        }, router: router)
    }

    /// A server with the product's page names (`/calc`, `/draw/<code>`…) and the routes in `router`.
    convenience init(pages router: Router) throws {
        var router = router
        router.pages(PageRoutes.pageFile(for:))
        try self.init(router: router)
    }
}
