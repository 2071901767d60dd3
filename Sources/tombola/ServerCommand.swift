#if canImport(Glibc)
import Glibc
#endif
import App
import Server
import DrawEngine
import JSON
import Foundation
import Storage

/// Parses options and runs the server until SIGINT/SIGTERM; SIGHUP reloads `Public/`.
/// Exit codes: 0 after a clean stop, 1 when the server cannot start, 2 for bad usage.
enum ServerCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let configuration: AppConfiguration
        do {
            switch try ServerOptions.parse(arguments, environment: environment()) {
            case .help:
                emit(ServerOptions.usage, to: 1)
                return 0
            case .run(let parsed):
                configuration = parsed
            }
        } catch {
            emit("tombola: \(error.message)\nRun 'tombola --help' for the options.\n", to: 2)
            return 2
        }

        Log.format = configuration.logFormat

        // Block the signals before any thread starts, so they all inherit the mask and
        // only `ProcessSignals.wait` below receives them.
        let signals = [SIGINT, SIGTERM, SIGHUP]
        ProcessSignals.block(signals)

        let metrics = MetricsRegistry()
        ProcessMetrics.register(in: metrics)
        let draws: DrawService
        do {
            if let cluster = configuration.cluster {
                draws = try DrawService.openCluster(configuration: configuration, cluster: cluster, metrics: metrics)
            } else {
                draws = try DrawService.open(configuration: configuration, metrics: metrics)
            }
        } catch let error as ClusterStartError {
            Log.error("start.failed", "cluster mode cannot start: \(error)")
            return 1
        } catch let error as StorageError where error.code == .schemaTooNew {
            Log.error("start.failed", "cannot open the draws in \(configuration.dataDirectory): \(error.detail)",
                      fields: ["reason": .string("schema_too_new")])
            return 1
        } catch {
            Log.error("start.failed", "cannot open the draws in \(configuration.dataDirectory): \(error)")
            return 1
        }
        var settings = configuration.server
        settings.servesMetrics = configuration.metricsListen == nil
        let server = HTTPServer(configuration: settings, router: AppRoutes.router(for: configuration, draws: draws),
                            metrics: metrics)
        // --metrics-listen: /metrics (and /healthz) on their own listener, one loop, no pages.
        let metricsServer = configuration.metricsListen.map { address in
            var own = ServerConfiguration(host: address.host, port: address.port, loopCount: 1, ioUring: false, staticReloadInterval: nil)
            own.servesFiles = false
            return HTTPServer(configuration: own, metrics: metrics)
        }
        let port: Int
        var metricsPort: Int?
        do {
            port = try server.start()
            metricsPort = try metricsServer?.start()
        } catch {
            server.shutdown()
            draws.shutdown()
            Log.error("start.failed", "\(error)")
            return 1
        }
        draws.baseURL = DrawService.baseURL(configuration: configuration, port: port)
        // JSON lines never carry a secret, so there the banner's keys are left out; say so
        // when a key was generated this run (it cannot be learnt from a JSON log).
        var generated: [JSONValue] = []
        if draws.generatedAdminKey != nil { generated.append(.string("admin")) }
        if configuration.hostKey == nil && draws.defaultDraw.hostKey != nil { generated.append(.string("host")) }
        var fields: [String: JSONValue] = [:]
        if !generated.isEmpty {
            fields["generatedKeys"] = .array(generated)
            fields["note"] = .string("generated keys are not logged in JSON; set TOMBOLA_HOST_KEY_FILE and TOMBOLA_ADMIN_KEY_FILE, "
                                     + "or run tombola host-link / admin-link")
        }
        Log.event("start", fields: fields.merging([
            "port": .int(Int64(port)), "host": .string(configuration.host), "url": .string(draws.baseURL),
            "draw": .string(draws.defaultDraw.code), "version": .string(DrawService.version),
            "data": .string(configuration.dataDirectory), "trustedProxies": .int(Int64(configuration.trustedProxies.networks.count)),
        ]) { first, _ in first }, text: banner(configuration: configuration, port: port, draws: draws))
        let systemd = SystemdNotifier()
        systemd.ready(status: "serving \(draws.baseURL)")
        systemd.startWatchdog(for: server)
        if let metricsPort, let host = configuration.metricsListen?.host {
            Log.event("metrics", fields: ["port": .int(Int64(metricsPort))],
                      text: "tombola: /metrics only on http://\(host.contains(":") ? "[\(host)]" : host):\(metricsPort)/metrics")
        }

        while true {
            let signal = ProcessSignals.wait(for: signals)
            if signal == SIGHUP {
                guard let directory = configuration.publicDirectory else {
                    Log.event("reload", fields: ["files": .int(Int64(server.staticFiles.fileCount))],
                              text: "tombola: the pages are built into this binary; nothing to reload (--public DIR serves a directory)")
                    continue
                }
                do {
                    try server.reloadStaticFiles()
                    Log.event("reload", fields: ["files": .int(Int64(server.staticFiles.fileCount))],
                              text: "tombola: reloaded \(server.staticFiles.fileCount) files from \(directory)")
                } catch {
                    Log.error("reload.failed", "reload failed, still serving the old files: \(error)")
                }
                continue
            }
            Log.event("stop", text: "tombola: stopping…")
            systemd.stopping()
            draws.readiness.beginDraining()
            if configuration.drainSeconds > 0 {
                Log.event("drain", fields: ["seconds": .int(Int64(configuration.drainSeconds))],
                          text: "tombola: draining for \(configuration.drainSeconds) s (/readyz answers 503); a second signal stops at once")
                _ = ProcessSignals.wait(for: [SIGINT, SIGTERM], timeout: .seconds(configuration.drainSeconds))
            }
            server.shutdown()
            metricsServer?.shutdown()
            draws.shutdown()
            return 0
        }
    }

    /// The start-up banner: the one deliberate place secrets are printed (the host link of
    /// the default draw when its key was generated now or given on the command line, and the
    /// admin link when this start generated the admin key). A key read from a file is never printed.
    private static func banner(configuration: AppConfiguration, port: Int, draws: DrawService) -> String {
        var shown = configuration
        let draw = draws.defaultDraw
        shown.defaultDrawCode = draw.code
        shown.hostKey = configuration.hostKeyFile == nil ? draw.hostKey : nil
        shown.adminKey = draws.generatedAdminKey
        let dataOption = configuration.cluster == nil ? "--data" : "--redis and --cluster-key"
        var note = ""
        if configuration.hostKeyFile != nil {
            note = "  The host key of draw \(draw.code) is the one in --host-key-file (add #key=… to the host link).\n"
        } else if draw.hostKey == nil {
            note = "  The host key of draw \(draw.code) was printed when it was created (only its hash is stored).\n"
                + "  Lost the host link? Run `tombola host-link \(draw.code)` (with the same \(dataOption)) for a new one;\n"
                + "  it works at once, no restart needed.\n"
        } else if draw.keyReset {
            note = "  The host key of draw \(draw.code) was replaced by --host-key.\n"
        }
        if draws.generatedAdminKey == nil {
            if configuration.adminKey == nil {
                note += "  The admin key was printed when it was made (only its hash is kept in \(configuration.dataDirectory)).\n"
                    + "  Lost it? Run `tombola admin-link` (with the same --data) for a new one; it works at once.\n"
            } else {
                note += "  The admin key is the one you gave (\(configuration.adminKeyFile == nil ? "--admin-key" : "--admin-key-file")).\n"
            }
        }
        let text = Banner.text(configuration: shown, port: port, signer: draws.signer)
        guard !note.isEmpty, let end = text.range(of: "\nPress Ctrl-C") else { return text }
        return text.replacingCharacters(in: end, with: "\n" + note + "\nPress Ctrl-C")
    }

    enum SubcommandOptions {
        case run(AppConfiguration)
        /// Usage or an error was printed: exit with this status (0 after --help, 2 for bad usage).
        case exit(Int32)
    }

    /// The server's options (and TOMBOLA_* variables) for a subcommand such as `host-link`.
    static func subcommandOptions(_ arguments: [String], command: String, usage: String) -> SubcommandOptions {
        do {
            guard case .run(let parsed) = try ServerOptions.parse(arguments, environment: environment()) else {
                emit(usage + "\n", to: 1)
                return .exit(0)
            }
            return .run(parsed)
        } catch {
            emit("tombola \(command): \(error.message)\n\(usage)\n", to: 2)
            return .exit(2)
        }
    }

    /// Unbuffered, so lines from the loops' access log and from here never interleave.
    static func emit(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in _ = write(fd, raw.baseAddress, raw.count) }
    }

    static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "="), text.hasPrefix("TOMBOLA_") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        return result
    }
}
