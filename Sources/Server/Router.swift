import HTTPCore
import Posix

/// Answers one request, now or later, from any thread. Register with `Router.handle`.
public typealias HTTPHandler = @Sendable (HTTPRequest, Responder) -> Void

/// Takes a connection over from HTTP (e.g. a WebSocket handshake). Runs on the
/// connection's loop once every earlier response on it has been sent. To accept, write
/// the `101` response on `connection`, set `connection.handler` to the new protocol's
/// handler and feed it `leftover` (bytes that followed the request), then return
/// `.upgraded`. To refuse, return `.rejected(response)` and HTTP carries on. `server` is
/// what the running server lends the new protocol (its WebSocket loops and settings).
public typealias UpgradeHandler = @Sendable (_ request: HTTPRequest, _ connection: TCPConnection, _ leftover: [UInt8],
                                             _ server: UpgradeContext) -> UpgradeResult

/// Decides, from a request's head and the client's address (see `TrustedProxies`), a body
/// limit larger than the server's default for that request, or nil to keep the default. Called
/// on the connection's loop, at most once per request, and only when the body would pass the default.
public typealias BodyLimitHandler = @Sendable (_ head: HTTPRequestHead, _ client: String) -> Int?

/// What a running `Server` hands an upgrade handler: passed per upgrade, never stored in
/// the `Router`, so a router stays a plain value that outlives no server.
public struct UpgradeContext: Sendable {
    let webSockets: WebSocketRuntime
}

public enum UpgradeResult: Sendable {
    case upgraded
    case rejected(HTTPResponse)
}

/// Routes by path: exact routes first, then the longest matching prefix, then clean page
/// routes onto files of `Public/`, then the file tree. A plain value: built before
/// `Server.init` and copied into the server.
public struct Router: Sendable {
    struct ExactRoute: Sendable {
        var methods: [String]
        var handler: HTTPHandler
    }

    private(set) var exact: [String: ExactRoute] = [:]
    private(set) var prefixes: [(prefix: String, handler: HTTPHandler)] = []
    private(set) var upgrades: [(prefix: String, handler: UpgradeHandler)] = []
    private(set) var pageResolvers: [@Sendable ([String]) -> [String]?] = []
    private(set) var bodyLimits: [(prefix: String, decide: BodyLimitHandler)] = []
    /// Run by `Server.init` with its metrics registry.
    private(set) var metricsInstallers: [@Sendable (MetricsRegistry) -> Void] = []

    public init() {}

    /// `path` exactly (raw, before `?`), for the listed methods; other methods get 405.
    /// HEAD is served by the GET handler when not listed.
    public mutating func handle(_ path: String, methods: [String] = ["GET"], _ handler: @escaping HTTPHandler) {
        exact[path] = ExactRoute(methods: methods, handler: handler)
    }

    /// Every path starting with `prefix` (e.g. `/api/draws`), any method: the handler checks
    /// methods itself (`HTTPResponse.methodNotAllowed(allow:)`).
    public mutating func handle(prefix: String, _ handler: @escaping HTTPHandler) {
        prefixes.append((prefix, handler))
        prefixes.sort { $0.prefix.count > $1.prefix.count }
    }

    /// Requests whose path starts with `prefix` (e.g. `/ws/calc`, `/ws/draw/`) go to
    /// `handler` as upgrades, whether or not they carry `Upgrade` (the handler refuses
    /// plain requests, typically with 426).
    public mutating func upgrade(prefix: String, _ handler: @escaping UpgradeHandler) {
        upgrades.append((prefix, handler))
        upgrades.sort { $0.prefix.count > $1.prefix.count }
    }

    /// A larger body limit for some requests under `prefix` (e.g. pool uploads by a draw's host):
    /// every other request keeps the default limit (413 beyond it).
    public mutating func bodyLimit(prefix: String, _ decide: @escaping BodyLimitHandler) {
        bodyLimits.append((prefix, decide))
        bodyLimits.sort { $0.prefix.count > $1.prefix.count }
    }

    func largerBodyLimit(for head: HTTPRequestHead, client: String) -> Int? {
        bodyLimits.first(where: { head.path.hasPrefix($0.prefix) })?.decide(head, client)
    }

    /// Clean page routes: `resolve` maps a request's path segments (e.g. `["calc"]`) to the
    /// segments of a file under `Public/` (e.g. `["calc.html"]`), or nil to pass.
    public mutating func pages(_ resolve: @escaping @Sendable ([String]) -> [String]?) {
        pageResolvers.append(resolve)
    }

    func pageFile(for segments: [String]) -> [String]? {
        for resolve in pageResolvers {
            if let file = resolve(segments) { return file }
        }
        return nil
    }

    /// Registers metrics in the registry of the `Server` made with this router (routes made
    /// before the server exists count things this way).
    public mutating func onMetrics(_ install: @escaping @Sendable (MetricsRegistry) -> Void) {
        metricsInstallers.append(install)
    }

    enum Match {
        case handler(HTTPHandler)
        case upgrade(UpgradeHandler)
        case methodNotAllowed([String])
        case none
    }

    func match(method: String, path: String) -> Match {
        if let upgrade = upgrades.first(where: { path.hasPrefix($0.prefix) }) { return .upgrade(upgrade.handler) }
        if let route = exact[path] {
            if route.methods.contains(method) || (method == "HEAD" && route.methods.contains("GET")) {
                return .handler(route.handler)
            }
            var allow = route.methods
            if allow.contains("GET") && !allow.contains("HEAD") { allow.append("HEAD") }
            return .methodNotAllowed(allow)
        }
        if let route = prefixes.first(where: { path.hasPrefix($0.prefix) }) { return .handler(route.handler) }
        return .none
    }
}
