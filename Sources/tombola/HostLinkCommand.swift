#if canImport(Glibc)
import Glibc
#endif
import App

/// `tombola host-link CODE [--data DIR | --redis URL --cluster-key FILE] [--host ADDR] [--port N]`: issues a new host key for a
/// draw whose host link was lost and prints the new link (the one other place a key is
/// printed, for the operator at the machine that holds the data). The old key stops working;
/// a running server on the same data takes the new one within a second. The options (and
/// their TOMBOLA_* variables) are the server's: `--data` finds the draws, `--host`/`--port`
/// build the link. With `--redis URL --cluster-key FILE` (cluster mode) the key's hash goes to
/// Redis instead, and every running instance takes it at once. Exit codes: 0 done, 1 failed,
/// 2 bad usage.
enum HostLinkCommand {
    static let usage = "usage: tombola host-link CODE [--data DIR | --redis URL --cluster-key FILE] [--host ADDR] [--port N]"

    static func run(_ arguments: [String]) -> Int32 {
        if CommandHelp.asked(arguments) { return CommandHelp.show(usage) }
        guard let code = arguments.first, !code.hasPrefix("-") else {
            ServerCommand.emit(usage + "\n", to: 2)
            return 2
        }
        let configuration: AppConfiguration
        switch ServerCommand.subcommandOptions(Array(arguments.dropFirst()), command: "host-link", usage: usage) {
        case .run(let parsed): configuration = parsed
        case .exit(let status): return status
        }
        let issued: (code: String, key: String)
        do {
            if let cluster = configuration.cluster {
                let done = try HostLink.issue(code: code, cluster: cluster)
                issued = (done.code, done.key)
                if !done.audited {
                    ServerCommand.emit("tombola host-link: warning: the key was replaced, but its audit entry could not be written\n", to: 2)
                }
            } else {
                issued = try HostLink.issue(code: code, dataDirectory: configuration.dataDirectory)
            }
        } catch {
            ServerCommand.emit("tombola host-link: \(error)\n", to: 2)
            return 1
        }
        let base = DrawService.baseURL(configuration: configuration, port: configuration.port)
        ServerCommand.emit("""
            New host link for draw \(issued.code) (keep it secret; the old host link no longer works):
              \(base)/draw/\(issued.code)#key=\(issued.key)
            A running server takes the new key within a second (in cluster mode, every instance); pages still open with the old key become viewers.

            """, to: 1)
        return 0
    }
}
