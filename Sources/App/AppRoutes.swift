/// Where the server's routes are assembled (the `tombola` command and tests call this).
/// Each channel adds its endpoints here.
public enum AppRoutes {
    public static func install(into router: inout Router, configuration: ServerConfiguration) {
        if configuration.echoEndpoint { EchoEndpoint.install(into: &router) }
        CalcService.install(into: &router)
    }

    /// A router with every route of `configuration`.
    public static func router(for configuration: ServerConfiguration) -> Router {
        var router = Router()
        install(into: &router, configuration: configuration)
        return router
    }
}
