/// `/ws/echo`: echoes every text and binary message, for WebSocket conformance suites.
/// Exists only with `--echo-endpoint`.
public enum EchoEndpoint {
    static let path = "/ws/echo"

    static let configuration = WebSocketEndpointConfiguration(maxMessageSize: 16 << 20, reliableHardLimit: 64 << 20)

    public static func install(into router: inout Router) {
        router.webSocket(prefix: path, configuration: configuration) { session in
            session.onText = { [unowned session] text in session.send(text: text) }
            session.onBinary = { [unowned session] bytes in session.send(binary: bytes) }
        }
    }
}
