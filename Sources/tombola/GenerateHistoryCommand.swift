#if canImport(Glibc)
import Glibc
#endif
import App

/// `tombola generate-history --data DIR [--draws 1000] [--rounds 100] [--session-rounds N]
/// [--prefix GEN] [--host-key KEY]`: fills a new data directory with stored draws for the
/// start-up benchmark (BENCHMARKS.md, issue 18). Draws are `PREFIX-0001`…, each with `--rounds`
/// real rounds (a Clear every `--session-rounds`), all with host key `--host-key`. Exit codes:
/// 0 done, 1 failed, 2 bad usage.
enum GenerateHistoryCommand {
    static let usage = "usage: tombola generate-history --data DIR [--draws 1000] [--rounds 100] [--session-rounds N] "
        + "[--prefix GEN] [--host-key KEY]"

    static func run(_ arguments: [String]) -> Int32 {
        if CommandHelp.asked(arguments) { return CommandHelp.show(usage) }
        var data: String?
        var draws = 1000
        var rounds = 100
        var session: Int?
        var prefix = "GEN"
        var hostKey = "generated-host-key"
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { return bad("\(flag) needs a value") }
            switch flag {
            case "--data": data = value
            case "--draws": guard let n = Int(value), (1...100_000).contains(n) else { return bad("--draws must be 1–100000") }; draws = n
            case "--rounds": guard let n = Int(value), (0...100_000).contains(n) else { return bad("--rounds must be 0–100000") }; rounds = n
            case "--session-rounds": guard let n = Int(value), n >= 1 else { return bad("--session-rounds must be at least 1") }; session = n
            case "--prefix": prefix = value
            case "--host-key": hostKey = value
            default: return bad("unknown option \(flag)")
            }
        }
        guard let data else { return bad("--data is required") }
        do {
            let summary = try HistoryGenerator.run(dataDirectory: data, draws: draws, rounds: rounds, roundsPerSession: session,
                                                   prefix: prefix, hostKey: hostKey) { done in
                if done % 100 == 0 { ServerCommand.emit("\(done) draws\n", to: 2) }
            }
            ServerCommand.emit("generated \(summary.draws) draws, \(summary.records) records in "
                               + "\(Int(summary.seconds * 1000)) ms into \(data)\n", to: 1)
            return 0
        } catch {
            ServerCommand.emit("tombola generate-history: \(error)\n", to: 2)
            return 1
        }
    }

    private static func bad(_ message: String) -> Int32 {
        ServerCommand.emit("tombola generate-history: \(message)\n\(usage)\n", to: 2)
        return 2
    }
}
