import HTTPCore
import Posix

/// Answers one request, now or later, from any thread. Register with `Router.handle`.
public typealias HTTPHandler = @Sendable (HTTPRequest, Responder) -> Void

/// Takes a connection over from HTTP (e.g. a WebSocket handshake). Runs on the
/// connection's loop once every earlier response on it has been sent. To accept, write
/// the `101` response on `connection`, set `connection.handler` to the new protocol's
/// handler and feed it `leftover` (bytes that followed the request), then return
/// `.upgraded`. To refuse, return `.rejected(response)` and HTTP carries on.
public typealias UpgradeHandler = @Sendable (_ request: HTTPRequest, _ connection: TCPConnection, _ leftover: [UInt8]) -> UpgradeResult

public enum UpgradeResult: Sendable {
    case upgraded
    case rejected(HTTPResponse)
}

/// Routes by path: exact routes first, then the longest matching prefix. Built before
/// `Server.start()` and immutable afterwards.
public struct Router: Sendable {
    struct ExactRoute: Sendable {
        var methods: [String]
        var handler: HTTPHandler
    }

    private(set) var exact: [String: ExactRoute] = [:]
    private(set) var prefixes: [(prefix: String, handler: HTTPHandler)] = []
    private(set) var upgrades: [(prefix: String, handler: UpgradeHandler)] = []
    /// Shared by the WebSocket endpoints registered here; bound by the `Server` that runs them.
    let webSockets = WebSocketRuntime()

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
