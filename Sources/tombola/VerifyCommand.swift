#if canImport(Glibc)
import Glibc
#endif
import DrawEngine

/// `tombola verify FILE` rechecks every record of an exported draw (docs/FAIRNESS.md §7),
/// prints one line per record and exits 0 when all check, 1 when any fails, 2 on usage errors.
enum VerifyCommand {
    static func run(_ arguments: [String]) -> Int32 {
        if arguments.first == "--sample-export", arguments.count > 1, arguments[1] == "past" {
            // A draw that excludes the winners of another (docs/FAIRNESS.md §3, "Winners of other draws").
            let seed = arguments.count > 2 ? UInt64(arguments[2]) : 1
            guard let seed, arguments.count <= 3 else {
                printError("usage: tombola verify --sample-export past [SEED]")
                return 2
            }
            print(SampleDraw.pastExport(seed: seed))
            return 0
        }
        if arguments.first == "--sample-export", arguments.count > 1, arguments[1] == "pools" {
            // Weighted entries and prizes limited to groups (docs/FAIRNESS.md §3, §5).
            let seed = arguments.count > 2 ? UInt64(arguments[2]) : 1
            guard let seed, arguments.count <= 3 else {
                printError("usage: tombola verify --sample-export pools [SEED]")
                return 2
            }
            print(SampleDraw.poolsExport(seed: seed))
            return 0
        }
        if arguments.first == "--sample-export" {
            // A deterministic export that exercises every record kind (for tests and page rechecks).
            let seed = arguments.count > 1 ? UInt64(arguments[1]) : 1
            guard let seed, arguments.count <= 2 else {
                printError("usage: tombola verify --sample-export [SEED]")
                return 2
            }
            print(SampleDraw.export(seed: seed))
            return 0
        }
        guard arguments.count == 1, let path = arguments.first, !path.hasPrefix("-") || path == "-" else {
            printError("usage: tombola verify EXPORT.json   (- reads standard input; --sample-export [pools|past] [SEED] prints a demo export)")
            return 2
        }
        guard let text = readAll(path) else {
            printError("tombola verify: cannot read \(path)")
            return 2
        }
        let report: VerificationReport
        do {
            report = try RoundVerifier.verify(exportText: text)
        } catch {
            printError("tombola verify: \(path): \(error.reason)")
            return 1
        }
        for check in report.checks {
            for note in check.notes { print("#\(check.index) note: \(note)") }
            print(check.line)
        }
        if let problem = report.chainProblem { print("FAIL: \(problem)") }
        let failed = report.checks.filter { !$0.ok }.count + (report.chainProblem == nil ? 0 : 1)
        print(report.passed
              ? "verified: \(report.roundCount) rounds, \(report.checks.count) records, \(report.algorithms.joined(separator: " + "))"
              : "NOT verified: \(failed) problem(s)")
        return report.passed ? 0 : 1
    }

    private static func readAll(_ path: String) -> String? {
        let file: UnsafeMutablePointer<FILE>? = path == "-" ? fdopen(0, "rb") : fopen(path, "rb")
        guard let file else { return nil }
        defer { fclose(file) }
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count > 0 { bytes += buffer[0..<count] }
            if count < buffer.count { break }
        }
        guard ferror(file) == 0 else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func printError(_ message: String) {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
