/// The draw channel's routes: `/ws/draw/<code>` and the REST API under `/api`.
public enum DrawRoutes {
    public static func install(into router: inout Router, service: DrawService) {
        DrawAPI.install(into: &router, service: service)
    }
}
