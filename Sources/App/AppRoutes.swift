import Embedded
import Server

/// Where the server's routes are assembled (the `tombola` command and tests call this).
/// Each channel adds its endpoints here.
public enum AppRoutes {
    public static func install(into router: inout Router, configuration: AppConfiguration, draws: DrawService? = nil) {
        router.pages(PageRoutes.pageFile(for:))
        router.onMetrics { registry in
            registry.gauge("tombola_build_info", help: "The running build (always 1): its version, commit and Swift compiler.",
                           labels: [("version", BuildInfo.version), ("commit", BuildInfo.commit), ("swift", BuildInfo.swiftVersion)]).set(1)
        }
        if configuration.echoEndpoint { EchoEndpoint.install(into: &router) }
        CalcService.install(into: &router)
        if let draws {
            DrawRoutes.install(into: &router, service: draws)
            Readiness.install(into: &router, service: draws)
        }
    }

    /// A router with every route of `configuration`.
    public static func router(for configuration: AppConfiguration, draws: DrawService? = nil) -> Router {
        var router = Router()
        install(into: &router, configuration: configuration, draws: draws)
        return router
    }
}
