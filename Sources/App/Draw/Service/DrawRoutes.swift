import DrawRoomCore
import Server
import HTTPCore

/// The draw channel's routes: `/ws/draw/<code>` and the REST API under `/api`.
public enum DrawRoutes {
    public static func install(into router: inout Router, service: DrawService) {
        DrawAPI.install(into: &router, service: service)
        installWebSocket(into: &router, service: service)
    }

    /// `/ws/draw/<code>`: an unknown code is refused with 404 before the handshake; a page
    /// that joins gets its `state` snapshot, then the room's broadcasts.
    static func installWebSocket(into router: inout Router, service: DrawService) {
        let configuration = WebSocketEndpointConfiguration()
        router.upgrade(prefix: "/ws/draw/") { request, connection, leftover, server in
            let code = String(request.head.path.dropFirst("/ws/draw/".count))
            guard let room = service.room(code) else { return .rejected(APIError.response("unknown_draw")) }
            // The check-in device cookie (#14) tells the room which entry this page made.
            let device = DeviceToken.token(in: request.head.headers).map(DeviceToken.hash)
            return WebSocketUpgrade.perform(request: request, connection: connection, leftover: leftover,
                                            configuration: configuration, server: server) { session in
                room.group.join(session)
                let handle = session.handle
                session.onText = { text in room.received(text, from: handle.id) }
                // Draw messages are JSON text frames; a binary one is answered, not dropped.
                session.onBinary = { _ in handle.send(text: DrawWire.errorText("bad_json", seq: nil)) }
                session.onClose = { room.leave(handle.id) }
                room.join(handle, remote: session.clientAddress, device: device)
            }
        }
    }
}
