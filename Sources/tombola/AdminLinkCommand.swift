#if canImport(Glibc)
import Glibc
#endif
import App

/// `tombola admin-link [--data DIR] [--host ADDR] [--port N]`: issues a new admin key for the
/// server whose data is in `--data` and prints the admin link (the landing page's admin view,
/// the key in the fragment). The old key stops working; a running server on the same data
/// takes the new one within a second. In cluster mode each instance keeps its own admin key
/// in its data directory (docs/CLUSTER.md). Exit codes: 0 done, 1 failed, 2 bad usage.
enum AdminLinkCommand {
    static let usage = "usage: tombola admin-link [--data DIR] [--host ADDR] [--port N]"

    static func run(_ arguments: [String]) -> Int32 {
        let configuration: AppConfiguration
        switch ServerCommand.subcommandOptions(arguments, command: "admin-link", usage: usage) {
        case .run(let parsed): configuration = parsed
        case .exit(let status): return status
        }
        let key: String
        do {
            key = try AdminKey.issue(dataDirectory: configuration.dataDirectory)
        } catch {
            ServerCommand.emit("tombola admin-link: \(error)\n", to: 2)
            return 1
        }
        let base = DrawService.baseURL(configuration: configuration, port: configuration.port)
        var text = """
            New admin link (keep it secret; the old admin key no longer works):
              \(AdminKey.link(base: base, key: key))
            The admin key alone (for Authorization: Bearer): \(key)
            A running server takes the new key within a second.

            """
        if configuration.adminKey != nil {
            text += "Note: --admin-key or TOMBOLA_ADMIN_KEY(_FILE) is set: the next start stores that key again instead.\n"
        }
        ServerCommand.emit(text, to: 1)
        return 0
    }
}
