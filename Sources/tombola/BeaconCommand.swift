#if canImport(Glibc)
import Glibc
#endif
import Beacon
import DrawEngine
import JSON

/// `tombola beacon [ROUND|next] [--relay URL]… [--chain HEX --public-key HEX --genesis S --period S]
/// [--allow-http] [--wait MS]` fetches one drand round the way a beacon-sealed round does
/// (docs/FAIRNESS.md §13): from every relay with libcurl, the value taken when randomness =
/// SHA-256(signature) and its BLS signature verifies under the chain's key, relays that serve an
/// invalid one skipped. Prints the value as JSON (with the relays that served it and those
/// skipped) and exits 0, or `void: <reason>` and exits 1; 2 on usage errors. `next` is the round a lock stored
/// now would be sealed with; the wait limit counts from the round's due time.
enum BeaconCommand {
    static let usage = "usage: tombola beacon [ROUND|next] [--relay URL]… [--chain HEX --public-key HEX --genesis S --period S] "
        + "[--allow-http] [--wait MS]"

    static func run(_ arguments: [String]) -> Int32 {
        if CommandHelp.asked(arguments) { return CommandHelp.show(usage) }
        var relays = [String]()
        var chain = BeaconChain.quicknet
        var allowHTTP = false
        var waitMillis = BeaconClient.defaultWaitMillis
        var target: String?
        var rest = arguments[...]
        var hash = chain.hash, key = chain.publicKey, genesis = chain.genesis, period = chain.period
        while let argument = rest.popFirst() {
            switch argument {
            case "--allow-http": allowHTTP = true
            case "--relay", "--chain", "--public-key", "--genesis", "--period", "--wait":
                guard let value = rest.popFirst() else { return fail(usage) }
                switch argument {
                case "--relay": relays.append(value)
                case "--chain": hash = value
                case "--public-key": key = value
                case "--genesis": guard let n = Int64(value) else { return fail(usage) }; genesis = n
                case "--period": guard let n = Int64(value) else { return fail(usage) }; period = n
                default: guard let n = Int64(value), n >= 0, n <= 600_000 else { return fail(usage) }; waitMillis = n
                }
            default:
                guard target == nil, !argument.hasPrefix("-") else { return fail(usage) }
                target = argument
            }
        }
        chain = BeaconChain(hash: hash, publicKey: key, genesis: genesis, period: period)
        guard chain.isWellFormed else { return fail("tombola beacon: the chain needs a 64-hex hash, a 192-hex public key and a period ≥ 1") }
        if relays.isEmpty { relays = BeaconChain.defaultRelays }
        let now = BeaconClient.nowMillis()
        let round: UInt64
        switch target {
        case nil, "next": round = BeaconSeal.round(of: chain, lockedAt: now)
        case let text?:
            guard let n = UInt64(text), n >= 1 else { return fail(usage) }
            round = n
        }
        let due = chain.dueMillis(of: round)
        if due > now {
            printError("tombola beacon: waiting for round \(round), due in \(due - now) ms")
            usleep(useconds_t((due - now) * 1000))
        }
        let client = BeaconClient(allowHTTP: allowHTTP)
        let report = client.fetchReport(BeaconSource(chain: chain, relays: relays), round: round,
                                        deadlineMillis: max(due, now) + waitMillis)
        switch report.outcome {
        case .value(let value, let served):
            // `skipped`: the relays that served an invalid value (recorded, not trusted).
            let skipped = JSONValue.array(report.skipped.map { .object(["relay": .string($0.relay), "problem": .string($0.problem)]) })
            print(JSONValue.object(["beaconRound": .int(Int64(value.round)), "randomness": .string(value.randomness),
                                    "signature": .string(value.signature), "relays": .array(served.map { .string($0) }),
                                    "skipped": skipped]).canonicalString)
            return 0
        case .failed(let reason):
            print("void: \(reason)")
            return 1
        }
    }

    private static func fail(_ message: String) -> Int32 {
        printError(message)
        return 2
    }

    private static func printError(_ message: String) {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
