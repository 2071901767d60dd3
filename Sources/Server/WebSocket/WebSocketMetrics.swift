/// The WebSocket metrics on `/metrics`. Updates are lock-free counters.
final class WebSocketMetrics: Sendable {
    /// Close codes counted under their own label; anything else counts as "other".
    static let labelledCloseCodes: [UInt16] = [1000, 1001, 1002, 1003, 1006, 1007, 1008, 1009, 1011, 1013]

    let openSessions: MetricsGauge
    let acceptedSessions: MetricsCounter
    let messagesReceived: MetricsCounter
    let messagesSent: MetricsCounter
    /// Latest-value frames skipped for clients that were behind.
    let framesSkipped: MetricsCounter
    private let closedByCode: [UInt16: MetricsCounter]
    private let closedOther: MetricsCounter

    init(registry: MetricsRegistry) {
        openSessions = registry.gauge("tombola_ws_open_sessions", help: "Open WebSocket sessions.")
        acceptedSessions = registry.counter("tombola_ws_sessions_total", help: "WebSocket sessions opened.")
        messagesReceived = registry.counter("tombola_ws_messages_received_total", help: "WebSocket messages received from clients.")
        messagesSent = registry.counter("tombola_ws_messages_sent_total", help: "WebSocket messages queued for clients.")
        framesSkipped = registry.counter("tombola_ws_latest_value_skipped_total",
                                         help: "Latest-value messages skipped because the client was behind.")
        let help = "WebSocket sessions closed, by close code (1006: the socket closed without a close frame)."
        var byCode: [UInt16: MetricsCounter] = [:]
        for code in Self.labelledCloseCodes {
            byCode[code] = registry.counter("tombola_ws_sessions_closed_total", help: help, labels: [("code", String(code))])
        }
        closedByCode = byCode
        closedOther = registry.counter("tombola_ws_sessions_closed_total", help: help, labels: [("code", "other")])
    }

    func countClose(code: UInt16) {
        (closedByCode[code] ?? closedOther).increment()
    }
}
