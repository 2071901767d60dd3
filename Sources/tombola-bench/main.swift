import Glibc

/// tombola-bench: load generators for a Tombola server on this machine, on our own epoll
/// loop and WebSocket codec. Each run prints a table and one JSON line, then exits.
let usage = """
    usage: tombola-bench <command> [options]   (loopback targets only)

    \(FanoutCommand.usage)
    \(KeysCommand.usage)
    \(ConnectCommand.usage)
    \(StaticCommand.usage)
    \(StartupCommand.usage)
    \(FloorCommand.usage)
    \(CheckinCommand.usage)
    \(PoolCommand.usage)
    \(StormCommand.usage)
    \(RoomsCommand.usage)
    \(BeaconCommand.usage)
    """

/// Writes one line straight to a descriptor (unbuffered, so worker pipes see it at once).
func emit(_ text: String, to fd: Int32 = 1) {
    var line = Array((text + "\n").utf8)
    var offset = 0
    while offset < line.count {
        let written = line.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if written <= 0 { return }
        offset += written
    }
}

func runCommand(_ arguments: [String]) throws(BenchError) {
    guard let command = arguments.first else { throw .usage(usage) }
    let rest = Array(arguments.dropFirst())
    switch command {
    case "fanout": try FanoutCommand(rest).run().print()
    case "fanout-worker": try FanoutWorker(rest).run()
    case "keys": try KeysCommand(rest).run().print()
    case "connect": try ConnectCommand(rest).run().print()
    case "static": try StaticCommand(rest).run().print()
    case "startup": try StartupCommand(rest).run().print()
    case "storm": try StormCommand(rest).run().print()
    case "rooms": try RoomsCommand(rest).run().print()
    case "floor": for report in try FloorCommand(rest).run() { report.print() }
    case "pool": try PoolCommand(rest).run().print()
    case "floor-reader": try FloorReader(rest).run()
    case "checkin": try CheckinCommand(rest).run().print()
    case "beacon": try BeaconCommand(rest).run().print()
    case "help", "--help", "-h": emit(usage)
    default: throw .usage("unknown command '\(command)'\n\n\(usage)")
    }
}

do {
    try runCommand(Array(CommandLine.arguments.dropFirst()))
} catch {
    emit("tombola-bench: \(error.message)", to: 2)
    exit(error.exitCode)
}
