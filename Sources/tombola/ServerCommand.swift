#if canImport(Glibc)
import Glibc
#endif
import App
import Foundation

/// Parses options and runs the server until SIGINT/SIGTERM; SIGHUP reloads `Public/`.
/// Exit codes: 0 after a clean stop, 1 when the server cannot start, 2 for bad usage.
enum ServerCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let configuration: ServerConfiguration
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

        // Block the signals before any thread starts, so they all inherit the mask and
        // only `ProcessSignals.wait` below receives them.
        let signals = [SIGINT, SIGTERM, SIGHUP]
        ProcessSignals.block(signals)

        let metrics = MetricsRegistry()
        let draws: DrawService
        do {
            draws = try DrawService.open(configuration: configuration, metrics: metrics)
        } catch {
            emit("tombola: cannot open the draws in \(configuration.dataDirectory): \(error)\n", to: 2)
            return 1
        }
        let server = Server(configuration: configuration, router: AppRoutes.router(for: configuration, draws: draws),
                            metrics: metrics)
        let port: Int
        do {
            port = try server.start()
        } catch {
            draws.shutdown()
            emit("tombola: \(error)\n", to: 2)
            return 1
        }
        draws.baseURL = DrawService.baseURL(configuration: configuration, port: port)
        emit(banner(configuration: configuration, port: port, draws: draws), to: 1)

        while true {
            let signal = ProcessSignals.wait(for: signals)
            if signal == SIGHUP {
                do {
                    try server.reloadStaticFiles()
                    emit("tombola: reloaded \(server.staticFiles.fileCount) files from \(configuration.publicDirectory)\n", to: 1)
                } catch {
                    emit("tombola: reload failed, still serving the old files: \(error)\n", to: 2)
                }
                continue
            }
            emit("tombola: stopping…\n", to: 1)
            server.shutdown()
            draws.shutdown()
            return 0
        }
    }

    /// The start-up banner: the one deliberate place secrets are printed (the host link of
    /// the default draw when its key is known this run, and the admin key).
    private static func banner(configuration: ServerConfiguration, port: Int, draws: DrawService) -> String {
        var shown = configuration
        let draw = draws.defaultDraw
        shown.defaultDrawCode = draw.code
        shown.hostKey = draw.hostKey
        shown.adminKey = draws.adminKey
        var note = ""
        if draw.hostKey == nil {
            note = "  The host key of draw \(draw.code) was printed when it was created (only its hash is stored).\n"
                + "  Lost the host link? Run `tombola host-link \(draw.code)` (with the same --data) for a new one;\n"
                + "  it works at once, no restart needed.\n"
        } else if draw.keyReset {
            note = "  The host key of draw \(draw.code) was replaced by --host-key.\n"
        }
        let text = Banner.text(configuration: shown, port: port)
        guard !note.isEmpty, let end = text.range(of: "\nPress Ctrl-C") else { return text }
        return text.replacingCharacters(in: end, with: "\n" + note + "\nPress Ctrl-C")
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
