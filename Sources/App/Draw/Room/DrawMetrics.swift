import Server
/// The draw channel's metrics on `/metrics`.
struct DrawMetrics: Sendable {
    let rounds: MetricsCounter
    let commands: MetricsCounter
    let refusedCommands: MetricsCounter
    let storageFailures: MetricsCounter
    let authFailures: MetricsCounter
    /// Seconds from a Stop to the reveal of its winners (the slow-down and the synced write).
    let revealDelay: MetricsHistogram
    /// Seconds from a page's WebSocket joining a draw to its `state` snapshot (reading the draw back included).
    let joinTime: MetricsHistogram
    /// Seconds one write of a draw's records takes to be stored (committed and synced).
    let storeLatency: MetricsHistogram

    init(registry: MetricsRegistry) {
        rounds = registry.counter("tombola_draw_rounds_total", help: "Rounds drawn and stored (replacements included).")
        commands = registry.counter("tombola_draw_commands_total", help: "Host commands applied.")
        refusedCommands = registry.counter("tombola_draw_commands_refused_total",
                                           help: "Host commands refused (out of turn, bad settings, storage).")
        storageFailures = registry.counter("tombola_draw_storage_failures_total",
                                           help: "Draw writes the store refused (nothing was announced).")
        authFailures = registry.counter("tombola_draw_auth_failures_total", help: "Wrong host or admin keys.")
        revealDelay = registry.histogram("tombola_draw_reveal_delay_seconds", help: "From a Stop to the reveal of its winners.")
        joinTime = registry.histogram("tombola_draw_join_seconds", help: "From a page joining a draw to its state snapshot.")
        storeLatency = registry.histogram("tombola_draw_store_seconds", help: "Storing one write of a draw's records (synced).")
    }
}
