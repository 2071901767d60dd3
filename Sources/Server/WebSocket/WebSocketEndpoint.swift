import HTTPCore
import Posix
import WebSocketCore

extension Router {
    /// Serves WebSockets on every path starting with `prefix` (e.g. `/ws/calc`, `/ws/draw/`).
    ///
    /// The opening handshake (RFC 6455 §4.2) answers 426 with `Sec-WebSocket-Version: 13` for
    /// another version, 400 for a missing or bad key or upgrade headers, 405 for a method other
    /// than GET, and 403 for a browser `Origin` that is neither the request's `Host` nor
    /// allowed (`ServerConfiguration.allowedOrigins`, `configuration.allowedOrigins`);
    /// requests without `Origin` (non-browser clients) are allowed. permessage-deflate is
    /// negotiated when the client offers it.
    ///
    /// `accept` runs on the new session's loop right after the `101` is queued and before any
    /// message is delivered: set `onText`/`onBinary`/`onClose` there, join groups, send a
    /// greeting. Read `session.request` for the path and query.
    public mutating func webSocket(prefix: String, configuration: WebSocketEndpointConfiguration = WebSocketEndpointConfiguration(),
                                   accept: @escaping @Sendable (WebSocketSession) -> Void) {
        upgrade(prefix: prefix) { request, connection, leftover, server in
            WebSocketUpgrade.perform(request: request, connection: connection, leftover: leftover,
                                     configuration: configuration, server: server, accept: accept)
        }
    }
}

/// The WebSocket opening handshake on a connection that asked to upgrade; for upgrade
/// handlers that first decide whether the path exists (an unknown draw gets 404).
public enum WebSocketUpgrade {
    public static func perform(request: HTTPRequest, connection: TCPConnection, leftover: [UInt8],
                               configuration: WebSocketEndpointConfiguration, server: UpgradeContext,
                               accept: @escaping @Sendable (WebSocketSession) -> Void) -> UpgradeResult {
        let runtime = server.webSockets
        let head = request.head
        let snapshot = runtime.snapshot(for: connection.loop)
        // Behind a trusted proxy the Origin is checked against the host the browser asked for.
        let client = snapshot.trustedProxies.client(peer: connection.remoteAddress.host, headers: head.headers)
        let handshake = WebSocketHandshake.validate(
            method: head.method, version: "HTTP/1.\(head.versionMinor)",
            headers: { name in
                if name == "host", let host = client.host { return [host] }
                return head.headers.values(for: name)
            },
            configuration: WebSocketHandshake.Configuration(
                allowedOrigins: snapshot.allowedOrigins + configuration.allowedOrigins,
                subprotocols: configuration.subprotocols, deflate: configuration.deflate))
        guard handshake.isAccepted else { return .rejected(refusal(handshake)) }
        // Keep the head only: a GET upgrade has no body worth holding for the session's life.
        let kept = HTTPRequest(head: head)
        if configuration.prefersInteractiveLoop, let interactive = runtime.interactiveLoop,
           connection.migrate(to: interactive.loop, { moved in
               interactive.adopt(moved)
               open(request: kept, connection: moved, leftover: leftover, handshake: handshake,
                    configuration: configuration, runtime: runtime, accept: accept)
           }) {
            return .upgraded
        }
        open(request: kept, connection: connection, leftover: leftover, handshake: handshake,
             configuration: configuration, runtime: runtime, accept: accept)
        return .upgraded
    }

    /// Answers 101 and starts the session on `connection`'s loop.
    private static func open(request: HTTPRequest, connection: TCPConnection, leftover: [UInt8],
                             handshake: WebSocketHandshake.Result, configuration: WebSocketEndpointConfiguration,
                             runtime: WebSocketRuntime, accept: @Sendable (WebSocketSession) -> Void) {
        connection.write(handshake.responseHead)
        let session = WebSocketSession(connection: connection, request: request, handshake: handshake,
                                       configuration: configuration, runtime: runtime.snapshot(for: connection.loop))
        connection.handler = session
        session.activate()
        accept(session)
        if !leftover.isEmpty, connection.handler === session {
            leftover.withUnsafeBytes { session.received($0, on: connection) }
        }
    }

    private static func refusal(_ handshake: WebSocketHandshake.Result) -> HTTPResponse {
        let status = HTTPStatus(code: handshake.status)
        var response = HTTPResponse.text(status, message(for: handshake.error, status: status))
        for (name, value) in handshake.headers { response.headers.add(name: name, value: value) }
        if handshake.status == 426 { response.headers.add(name: "Upgrade", value: "websocket") }
        return response
    }

    private static func message(for error: WebSocketHandshakeError?, status: HTTPStatus) -> String {
        switch error {
        case .unsupportedVersion: "Upgrade Required: this server speaks WebSocket version 13"
        case .forbiddenOrigin: "Forbidden: this page's origin may not open WebSockets here"
        case .invalidKey: "Bad Request: missing or invalid Sec-WebSocket-Key"
        case .missingUpgradeHeader, .missingConnectionUpgrade: "Bad Request: this is a WebSocket endpoint"
        default: status.reasonPhrase
        }
    }
}
