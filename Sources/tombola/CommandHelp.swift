/// `--help` / `-h` for every sub-command: the usage goes to standard output and the command
/// exits 0, as people expect of a command line (issue 43, item 5). A usage printed because the
/// arguments were wrong goes to standard error with status 2 instead.
enum CommandHelp {
    /// Whether the arguments ask for help. Both spellings are looked for anywhere, so
    /// `tombola verify FILE --help` helps too; no sub-command takes them as a value.
    static func asked(_ arguments: [String]) -> Bool {
        arguments.contains("--help") || arguments.contains("-h")
    }

    /// Prints `usage` on standard output; the exit status for `--help`.
    static func show(_ usage: String) -> Int32 {
        ServerCommand.emit(usage.hasSuffix("\n") ? usage : usage + "\n", to: 1)
        return 0
    }
}
