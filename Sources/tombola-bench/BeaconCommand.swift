import BLS12381
import Glibc

/// `beacon`: the cost of checking one drand round's BLS signature (docs/FAIRNESS.md §13), as the
/// server does for every relay answer and `tombola verify` for every sealed round: quicknet
/// round 1000's published signature under quicknet's pinned key: each run parses the key (its
/// subgroup check and Miller-loop lines) and the signature (its subgroup check), hashes the round
/// to G1 and computes the pairing check; then the same with the key parsed once beforehand (a
/// server fetching a round parses the key once per fetch, `tombola verify` once per value).
/// In process, no server; CPU time of this thread beside the wall time (the machine is shared).
struct BeaconCommand {
    static let usage = """
        tombola-bench beacon [--runs 20]
        """

    static let publicKey = "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a"
    static let round: UInt64 = 1000
    static let signature = "b44679b9a59af2ec876b1a6b1ad52ea9b1615fc3982b19576350f93447cb1125e342b73a8dd2bacbe47e4b6b63ed5e39"

    var runs: Int

    init(_ arguments: [String]) throws(BenchError) {
        var args = try Arguments(arguments)
        runs = try args.int("runs", default: 20, range: 1...1000)
        try args.finish()
    }

    func run() throws(BenchError) -> Report {
        // One untimed run: the lazily built constants.
        guard BLSSignature.verifyDrand(round: Self.round, signatureHex: Self.signature, publicKeyHex: Self.publicKey) else {
            throw .failed("quicknet round 1000 does not verify")
        }
        let full = try measure { BLSSignature.verifyDrand(round: Self.round, signatureHex: Self.signature, publicKeyHex: Self.publicKey) }
        guard let key = BLSSignature.PublicKey(Self.bytes(Self.publicKey)) else { throw .failed("quicknet's key does not parse") }
        let signature = Self.bytes(Self.signature)
        let prepared = try measure { BLSSignature.verifyDrand(round: Self.round, signature: signature, publicKey: key) }
        var report = Report(command: "beacon")
        report.row("runs", String(runs), key: "runs", .int(runs))
        report.row("verify one round with the key parsed, median wall", Self.ms(full.wall), key: "verifyMedianMs", .double(full.wall))
        report.row("  median CPU", Self.ms(full.cpu), key: "verifyCpuMedianMs", .double(full.cpu))
        report.row("verify one round, key parsed before, median wall", Self.ms(prepared.wall), key: "verifyPreparedMedianMs", .double(prepared.wall))
        report.row("  median CPU", Self.ms(prepared.cpu), key: "verifyPreparedCpuMedianMs", .double(prepared.cpu))
        return report
    }

    /// Median wall and CPU milliseconds of `runs` calls, each of which must verify.
    func measure(_ body: () -> Bool) throws(BenchError) -> (wall: Double, cpu: Double) {
        var walls = [Double](), cpus = [Double]()
        for _ in 0..<runs {
            let wall = Self.now(CLOCK_MONOTONIC), cpu = Self.now(CLOCK_THREAD_CPUTIME_ID)
            let ok = body()
            walls.append((Self.now(CLOCK_MONOTONIC) - wall) * 1000)
            cpus.append((Self.now(CLOCK_THREAD_CPUTIME_ID) - cpu) * 1000)
            guard ok else { throw .failed("quicknet round 1000 does not verify") }
        }
        return (walls.sorted()[runs / 2], cpus.sorted()[runs / 2])
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var out = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    static func ms(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) ms"
    }

    static func now(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
