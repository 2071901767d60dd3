#if canImport(Glibc)
import Glibc
#endif
import DrawEngine
import JSON

/// `tombola verify FILE` rechecks every record of an exported draw (docs/FAIRNESS.md §7),
/// prints one line per record and exits 0 when all check, 1 when any fails, 2 on usage errors.
enum VerifyCommand {
    static let usage = "usage: tombola verify EXPORT.json [--past OTHER.json …] [--proof PROOF.json …] [--all-entries] [--trust-chain HASH:KEY …] [--beacon-value R:SIGNATURE …] [--key SIGNING-KEY] [--tsa-ca CA.pem]   "
        + "(- reads standard input; --sample-export [pools|past|beacon|books|rehearsal|reverse] [SEED] prints a demo export)"

    static func run(_ arguments: [String]) -> Int32 {
        if CommandHelp.asked(arguments) { return CommandHelp.show(usage) }
        if arguments.first == "--sample-export", arguments.count > 1, arguments[1] == "past" {
            // A draw that excludes the winners of another (docs/FAIRNESS.md §3, "Winners of other
            // draws"); `past lunch` prints that other draw's export.
            let lunch = arguments.count > 2 && arguments[2] == "lunch"
            let rest = Array(arguments.dropFirst(lunch ? 3 : 2))
            let seed = rest.first.map { UInt64($0) } ?? 1
            guard let seed, rest.count <= 1 else {
                printError("usage: tombola verify --sample-export past [lunch] [SEED]")
                return 2
            }
            let exports = SampleDraw.pastExports(seed: seed)
            print(lunch ? exports.lunch : exports.main)
            return 0
        }
        // `pools`: weighted entries and prizes limited to groups (docs/FAIRNESS.md §3, §5);
        // `beacon`: a round sealed by drand quicknet round 1000 (§13); `books`: ticket books (§3); `rehearsal`: a wiped rehearsal (§19);
        // `reverse`: a reverse raffle, a list and a range drawn out to the last one in (§21).
        let named: [String: (UInt64) -> String] = ["pools": { SampleDraw.poolsExport(seed: $0) },
                                                   "beacon": { SampleDraw.beaconExport(seed: $0) },
                                                   "books": { SampleDraw.booksExport(seed: $0) },
                                                   "rehearsal": { SampleDraw.rehearsalExport(seed: $0) },
                                                   "reverse": { SampleDraw.reverseExport(seed: $0) }]
        if arguments.first == "--sample-export", arguments.count > 1, let make = named[arguments[1]] {
            let seed = arguments.count > 2 ? UInt64(arguments[2]) : 1
            guard let seed, arguments.count <= 3 else {
                printError("usage: tombola verify --sample-export \(arguments[1]) [SEED]")
                return 2
            }
            print(make(seed))
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
        // `--past OTHER.json` (repeatable): the exports of draws this one excludes the winners of.
        var rest = arguments
        var pastPaths = [String]()
        while let flag = rest.firstIndex(of: "--past"), flag + 1 < rest.count {
            pastPaths.append(rest[flag + 1])
            rest.removeSubrange(flag...flag + 1)
        }
        // `--proof PROOF.json` (repeatable): entry proofs of GET …/rounds/<n>/proof; `--all-entries`:
        // every entry's path in every lock (docs/FAIRNESS.md §3, "The entry tree").
        var proofPaths = [String]()
        while let flag = rest.firstIndex(of: "--proof"), flag + 1 < rest.count {
            proofPaths.append(rest[flag + 1])
            rest.removeSubrange(flag...flag + 1)
        }
        // `--trust-chain HASH:PUBLICKEY` (repeatable): a drand chain other than quicknet whose
        // values this reader accepts (docs/FAIRNESS.md §13); without it such a chain fails.
        var trusted = [(hash: String, publicKey: String)]()
        while let flag = rest.firstIndex(of: "--trust-chain"), flag + 1 < rest.count {
            guard let trust = BeaconSignatureCheck.parseTrust(rest[flag + 1]) else {
                printError("tombola verify: --trust-chain needs HASH:PUBLICKEY (64 and 192 lower-case hex digits)")
                return 2
            }
            trusted.append(trust)
            rest.removeSubrange(flag...flag + 1)
        }
        // `--beacon-value R:SIGNATURE` (repeatable): drand round R's value, to show what an
        // abandoned sealed round would have drawn (issue #40, docs/FAIRNESS.md §13).
        var beaconValues = [UInt64: String]()
        while let flag = rest.firstIndex(of: "--beacon-value"), flag + 1 < rest.count {
            guard let (round, signature) = AbandonedSeal.parseValue(rest[flag + 1]) else {
                printError("tombola verify: --beacon-value needs R:SIGNATURE (a drand round number and 96 lower-case hex digits)")
                return 2
            }
            beaconValues[round] = signature
            rest.removeSubrange(flag...flag + 1)
        }
        // `--key KEY`: the server's signing key (its hex or fingerprint, from the banner, GET /api/server/key
        // or the certificate) the export's signatures must be made with (docs/FAIRNESS.md §17).
        var expectedKey: String? = nil
        if let flag = rest.firstIndex(of: "--key"), flag + 1 < rest.count {
            expectedKey = rest[flag + 1]
            rest.removeSubrange(flag...flag + 1)
        }
        // `--tsa-ca FILE`: the CA (PEM) the time-stamps' TSA certificates must chain to (docs/FAIRNESS.md §18).
        var tsaCA: String? = nil
        if let flag = rest.firstIndex(of: "--tsa-ca"), flag + 1 < rest.count {
            tsaCA = rest[flag + 1]
            rest.removeSubrange(flag...flag + 1)
        }
        let allEntries = rest.contains("--all-entries")
        rest.removeAll { $0 == "--all-entries" }
        guard rest.count == 1, let path = rest.first, !path.hasPrefix("-") || path == "-" else {
            printError(usage)
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
        var pastFailures = 0
        if !pastPaths.isEmpty {
            var others = [String: [JSONValue]]()
            for other in pastPaths {
                guard let text = readAll(other), let json = try? JSONValue.parse(text), let code = json["code"]?.stringValue,
                      let records = json["records"]?.arrayValue else {
                    printError("tombola verify: cannot read the export \(other)")
                    return 2
                }
                others[code] = records
            }
            let records = (try? JSONValue.parse(text))?["records"]?.arrayValue ?? []
            for finding in PastWinnersCheck.check(records: records, others: others) {
                for note in finding.notes { print("#\(finding.record) note: \(note)") }
                print("#\(finding.record) past winners of \(finding.code): " + (finding.problem.map { "FAIL: \($0)" } ?? "OK"))
                if finding.problem != nil { pastFailures += 1 }
            }
        }
        let exported = (try? JSONValue.parse(text))?["records"]?.arrayValue ?? []
        for proofPath in proofPaths {
            guard let proofText = readAll(proofPath), let proof = try? JSONValue.parse(proofText) else {
                printError("tombola verify: cannot read the proof \(proofPath)")
                return 2
            }
            let outcome = EntryProof.check(proof, against: exported)
            print(outcome.line)
            if !outcome.ok { pastFailures += 1 }
        }
        if allEntries {
            let outcome = EntryProof.checkAllEntries(exported)
            outcome.lines.forEach { print($0) }
            if !outcome.ok { pastFailures += 1 }
        }
        for item in report.beaconValues {
            // The drand signature of every sealed round, under its chain's pinned key (§13).
            let outcome = BeaconSignatureCheck.check(item, trusted: trusted)
            print(outcome.line)
            if !outcome.ok { pastFailures += 1 }
        }
        // Drand rounds given up on the record, and what they would have drawn (issue #40).
        let abandoned = AbandonedSealReport.lines(report.abandonedSeals, values: beaconValues)
        abandoned.lines.forEach { print($0) }
        pastFailures += abandoned.failed
        // The server's signatures of the records (issue #47): unsigned exports pass, reported as such.
        let signatures = SignatureCheck.check(export: (try? JSONValue.parse(text)) ?? .null, expectedKey: expectedKey)
        signatures.lines.forEach { print($0) }
        if !signatures.ok { pastFailures += 1 }
        // A private draw's host export: every name opens its public id, the winners by name (issue #42).
        let roster = PrivateRosterCheck.check(export: (try? JSONValue.parse(text)) ?? .null)
        roster.lines.forEach { print($0) }
        if !roster.ok { pastFailures += 1 }
        // Outside time-stamps of chain heads (issue #47).
        let stamps = TimeStampCheck.check(export: (try? JSONValue.parse(text)) ?? .null, caFile: tsaCA)
        stamps.lines.forEach { print($0) }
        if !stamps.ok { pastFailures += 1 }
        let failed = report.checks.filter { !$0.ok }.count + (report.chainProblem == nil ? 0 : 1) + pastFailures
        print(report.passed && pastFailures == 0
              ? "verified: \(report.roundCount) rounds, \(report.checks.count) records, \(report.algorithms.joined(separator: " + "))"
              : "NOT verified: \(failed) problem(s)")
        return report.passed && pastFailures == 0 ? 0 : 1
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
