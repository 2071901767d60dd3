import App

/// Parses options and runs the server until SIGINT/SIGTERM.
enum ServerCommand {
    static func run(_ arguments: [String]) -> Int32 {
        print("tombola: server not built yet")
        return 1
    }
}
