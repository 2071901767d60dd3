import Server
/// The draw channel's metrics on `/metrics`.
struct DrawMetrics: Sendable {
    let rounds: MetricsCounter
    let commands: MetricsCounter
    let refusedCommands: MetricsCounter
    let storageFailures: MetricsCounter
    let authFailures: MetricsCounter

    init(registry: MetricsRegistry) {
        rounds = registry.counter("tombola_draw_rounds_total", help: "Rounds drawn and stored (replacements included).")
        commands = registry.counter("tombola_draw_commands_total", help: "Host commands applied.")
        refusedCommands = registry.counter("tombola_draw_commands_refused_total",
                                           help: "Host commands refused (out of turn, bad settings, storage).")
        storageFailures = registry.counter("tombola_draw_storage_failures_total",
                                           help: "Draw writes the store refused (nothing was announced).")
        authFailures = registry.counter("tombola_draw_auth_failures_total", help: "Wrong host or admin keys.")
    }
}
