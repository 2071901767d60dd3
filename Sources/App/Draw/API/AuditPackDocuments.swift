import Compression
import DrawEngine
import Foundation
import JSON

/// The auditor's pack (issue #41, docs/FAIRNESS.md §20): what an auditor needs of one draw in one
/// ZIP, built from the host export and the audit log alone, so every file can be checked against
/// the export in it. Pure: the route (`AuditPack`) gathers the inputs.
enum AuditPackDocuments {
    struct Inputs: Sendable {
        var code: String
        var exportText: String
        var audit: [AuditExport.Entry]
        var serverKey: JSONValue?
        var software: SoftwareIdentity
        var madeAt: Int64
    }

    /// The export read once: its records and its verification (the summary and an event's share them).
    struct Reading: Sendable {
        var records: [JSONValue]
        var verification: Verification
    }

    static func read(_ inputs: Inputs) -> Reading {
        let export = (try? JSONValue.parse(inputs.exportText)) ?? .null
        return Reading(records: export["records"]?.arrayValue ?? [], verification: verify(exportText: inputs.exportText, export: export))
    }

    /// The pack's files, in the order the ZIP lists them.
    static func files(_ inputs: Inputs, _ reading: Reading? = nil) -> [(name: String, bytes: [UInt8])] {
        let reading = reading ?? read(inputs)
        let records = reading.records
        let verification = reading.verification
        var files: [(String, [UInt8])] = [
            ("summary.html", Array(summary(inputs, records: records, verification: verification).utf8)),
            ("export.json", Array(inputs.exportText.utf8)),
            ("verification.txt", Array((verification.lines + [verification.verdict]).joined(separator: "\n").utf8) + [10]),
            ("audit.json", Array((JSONValue.array(inputs.audit.map(auditJSON)).canonicalString + "\n").utf8)),
            ("audit.csv", Array(AuditExport.table(inputs.audit, timeZone: TimeZone(identifier: "UTC")!).csv.utf8)),
            ("server-key.json", Array(((inputs.serverKey ?? .null).canonicalString + "\n").utf8)),
            ("software.json", Array((inputs.software.json.canonicalString + "\n").utf8)),
        ]
        for round in rounds(records) {
            files.append(("certificates/round-\(round.number).html", Array(certificate(inputs.code, round: round, records: records).utf8)))
        }
        return files
    }

    static func zip(_ inputs: Inputs) throws -> [UInt8] {
        var writer = ZipWriter()
        for file in files(inputs) { try writer.add(file.name, file.bytes) }
        return try writer.finish()
    }

    // MARK: - Verification, as `tombola verify` runs it on the export

    struct Verification: Sendable {
        var lines: [String]
        var passed: Bool
        var verdict: String
    }

    static func verify(exportText: String, export: JSONValue) -> Verification {
        guard let report = try? RoundVerifier.verify(exportText: exportText) else {
            return Verification(lines: [], passed: false, verdict: "NOT verified: the export cannot be read")
        }
        var lines: [String] = []
        for check in report.checks {
            lines += check.notes.map { "#\(check.index) note: \($0)" }
            lines.append(check.line)
        }
        if let problem = report.chainProblem { lines.append("FAIL: \(problem)") }
        let signatures = SignatureCheck.check(export: export)
        let roster = PrivateRosterCheck.check(export: export)
        let stamps = TimeStampCheck.check(export: export)
        lines += signatures.lines + roster.lines + stamps.lines
        let passed = report.passed && signatures.ok && roster.ok && stamps.ok
        if !report.beaconValues.isEmpty {
            lines.append("note: drand signatures of sealed rounds are checked by `tombola verify` (it holds the chains' keys)")
        }
        let verdict = passed ? "verified: \(report.roundCount) rounds, \(report.checks.count) records, \(report.algorithms.joined(separator: " + "))"
            : "NOT verified"
        return Verification(lines: lines, passed: passed, verdict: verdict)
    }

    // MARK: - The record, read for people

    struct Round {
        var number: Int
        var record: JSONValue
        var winners: [String]
        var changes: [String]
        var signoffs: [String]

        /// A reverse raffle's round (FAIRNESS.md §21): its `winners` were drawn *out*.
        var reverse: Bool { record["reverse"]?.boolValue == true }
        /// The reverse raffle's winner, named by the round that left one in.
        var lastIn: String? { reverse ? record["lastIn"].map(text) : nil }

        /// The round's outcome in one line: its winners, or who it drew out and the last one in.
        var outcome: String {
            guard reverse else { return winners.joined(separator: ", ") }
            return "drawn out: " + winners.joined(separator: ", ") + (lastIn.map { "; the last one in wins: \($0)" } ?? "")
        }
    }

    /// The drawn rounds (each round number's latest record: a void's replacement comes later), with
    /// their voids, passes and observers' sign-offs.
    static func rounds(_ records: [JSONValue]) -> [Round] {
        var byNumber: [Int: Round] = [:]
        var order: [Int] = []
        for record in records {
            guard let kind = record["kind"]?.stringValue, let number = record["round"]?.intValue.map(Int.init) else { continue }
            switch kind {
            case "round":
                if byNumber[number] == nil { order.append(number) }
                var round = byNumber[number] ?? Round(number: number, record: record, winners: [], changes: [], signoffs: [])
                round.record = record
                for winner in record["winners"]?.arrayValue ?? [] where !round.winners.contains(text(winner)) { round.winners.append(text(winner)) }
                byNumber[number] = round
            case "void":
                byNumber[number]?.winners.removeAll { $0 == text(record["winner"] ?? .null) }
                byNumber[number]?.changes.append("void: \(text(record["winner"] ?? .null)) (\(record["reason"]?.stringValue ?? ""))")
            case "pass":
                let to = record["alternate"].map(text) ?? "nobody"
                byNumber[number]?.changes.append("pass: \(text(record["winner"] ?? .null)) → \(to) (\(record["reason"]?.stringValue ?? ""))")
            case "signoff":
                let keyed = record["publicKey"]?.stringValue != nil ? ", own key" : ""
                byNumber[number]?.signoffs.append("\(record["observer"]?.stringValue ?? "?") (\(record["statement"]?.stringValue ?? "?")\(keyed))")
            default:
                continue
            }
        }
        // A lock's sign-off comes before its round: attach those too.
        for record in records where record["kind"]?.stringValue == "signoff" && record["statement"]?.stringValue == "lock" {
            guard let number = record["round"]?.intValue.map(Int.init), var round = byNumber[number] else { continue }
            let line = "\(record["observer"]?.stringValue ?? "?") (lock\(record["publicKey"]?.stringValue != nil ? ", own key" : ""))"
            if !round.signoffs.contains(line) { round.signoffs.insert(line, at: 0) }
            byNumber[number] = round
        }
        return order.compactMap { byNumber[$0] }
    }

    static func text(_ value: JSONValue) -> String {
        if let s = value.stringValue { return s }
        if let n = value.intValue { return String(n) }
        if let name = value["name"]?.stringValue { return name }
        return value.canonicalString
    }

    static func auditJSON(_ entry: AuditExport.Entry) -> JSONValue {
        .object(["index": .int(Int64(entry.index)), "at": .int(entry.atMillis), "actor": .string(entry.actor), "action": .string(entry.action),
                 "detail": (try? JSONValue.parse(entry.detail)) ?? .string(entry.detail), "prev": .string(entry.prev), "hash": .string(entry.hash)])
    }

    static func time(_ millis: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(millis) / 1000))
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    static let style = """
        body{font:15px/1.45 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#111}
        h1{font-size:1.6em}h2{font-size:1.2em;margin-top:1.6em}table{border-collapse:collapse;width:100%}
        td,th{border:1px solid #bbb;padding:4px 6px;text-align:left;vertical-align:top}code{font:12px ui-monospace,monospace;overflow-wrap:anywhere}
        .ok{color:#065f2c;font-weight:700}.fail{color:#9b1c1c;font-weight:700}@media print{body{margin:0}}
        """

    static func page(_ title: String, _ body: String) -> String {
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>\(escape(title))</title><style>\(style)</style></head><body>\n\(body)</body></html>\n"
    }

    /// Who gave commands, as the audit log names them.
    static func operators(_ audit: [AuditExport.Entry]) -> Set<String> {
        Set(audit.compactMap { (try? JSONValue.parse($0.detail))?["operator"]?.stringValue })
    }

    /// The observers who signed off, as the record names them.
    static func observers(_ records: [JSONValue]) -> Set<String> {
        Set(records.filter { $0["kind"]?.stringValue == "signoff" }.compactMap { $0["observer"]?.stringValue })
    }

    /// The one-page summary: the draw, when, who, the pools, the rounds and what changed, the verdict.
    static func summary(_ inputs: Inputs, records: [JSONValue], verification: Verification) -> String {
        let times = records.compactMap { $0["at"]?.intValue }
        let people = Self.operators(inputs.audit)
        let observers = Self.observers(records)
        let pools = Set(records.compactMap { $0["poolHash"]?.stringValue })
        var body = "<h1>Auditor's pack: draw \(escape(inputs.code))</h1>\n<p>Made \(time(inputs.madeAt)) by \(escape(inputs.software.summary)).</p>\n"
        body += "<table>"
        body += "<tr><th>First and last record</th><td>\(times.min().map(time) ?? "–") · \(times.max().map(time) ?? "–")</td></tr>"
        body += "<tr><th>Operators (audit log)</th><td>\(escape(people.sorted().joined(separator: ", ")))</td></tr>"
        body += "<tr><th>Observers who signed off</th><td>\(escape(observers.sorted().joined(separator: ", ")))</td></tr>"
        body += "<tr><th>Records · audit entries</th><td>\(records.count) · \(inputs.audit.count)</td></tr>"
        body += "<tr><th>Pools locked (hashes)</th><td>\(pools.sorted().map { "<code>\($0)</code>" }.joined(separator: "<br>"))</td></tr>"
        body += "<tr><th>Server key</th><td><code>\(escape(inputs.serverKey?["fingerprint"]?.stringValue ?? "unsigned"))</code></td></tr>"
        body += "</table>\n<h2>Rounds</h2>\n<table><tr><th>Round</th><th>Prize</th><th>Winners</th><th>Voids and passes</th><th>Witnessed by</th></tr>"
        for round in rounds(records) {
            body += "<tr><td>\(round.number)</td><td>\(escape(round.record["prize"]?.stringValue ?? ""))</td>"
            body += "<td>\(escape(round.outcome))</td><td>\(escape(round.changes.joined(separator: "; ")))</td>"
            body += "<td>\(escape(round.signoffs.joined(separator: "; ")))</td></tr>"
        }
        body += "</table>\n"
        // Prizes handed over (issue 45): audit entries `handover`, in the audit log of this pack.
        let handovers = inputs.audit.filter { $0.action == "handover" }.compactMap { entry -> String? in
            guard let detail = try? JSONValue.parse(entry.detail) else { return nil }
            let prize = detail["prize"]?.stringValue.map { " · \(escape($0))" } ?? ""
            return "<tr><td>\(detail["round"]?.intValue ?? 0)</td><td>\(escape(detail["winner"]?.stringValue ?? ""))\(prize)</td>"
                + "<td>\(time(detail["at"]?.intValue ?? entry.atMillis))</td><td>\(escape(detail["operator"]?.stringValue ?? ""))</td></tr>"
        }
        if !handovers.isEmpty {
            body += "<h2>Prizes handed over</h2>\n<table><tr><th>Round</th><th>Winner · prize</th><th>Handed over (UTC)</th><th>By</th></tr>"
            body += handovers.joined() + "</table>\n"
        }
        body += "<h2>Verification</h2>\n"
        body += "<p class=\"\(verification.passed ? "ok" : "fail")\">\(escape(verification.verdict))</p>\n"
        body += "<p>The same checks as <code>tombola verify export.json</code> (and the script in docs/FAIRNESS.md §12) on the export in this pack; each line is in verification.txt.</p>\n"
        return page("Draw \(inputs.code): auditor's pack", body)
    }

    /// A round's certificate, print-ready and self-contained (no script, no fetch).
    static func certificate(_ code: String, round: Round, records: [JSONValue]) -> String {
        let r = round.record
        func row(_ label: String, _ value: String?) -> String {
            value.map { "<tr><th>\(escape(label))</th><td><code>\(escape($0))</code></td></tr>" } ?? ""
        }
        var body = "<h1>Certificate of draw \(escape(code)), round \(round.number)</h1>\n"
        if let prize = r["prize"]?.stringValue { body += "<p><strong>\(escape(prize))</strong></p>\n" }
        // A reverse raffle's round lists who it drew out, never as winners; the last round names the winner.
        if let lastIn = round.lastIn { body += "<p><strong>Last one in: \(escape(lastIn)) wins</strong></p>\n" }
        body += "<h2>\(round.reverse ? "Drawn out in round \(round.number)" : "Winners")</h2>\n<ol>"
        body += round.winners.map { "<li>\(escape($0))</li>" }.joined() + "</ol>\n"
        if !round.changes.isEmpty { body += "<p>" + round.changes.map(escape).joined(separator: "<br>") + "</p>\n" }
        body += "<table>"
        body += row("Drawn at (UTC)", r["at"]?.intValue.map(time))
        body += row("Commitment (published before Start)", r["commitment"]?.stringValue)
        body += row("Seed (published at the reveal)", r["seed"]?.stringValue)
        body += row("Pool hash", r["poolHash"]?.stringValue)
        body += row("Entropy", r["entropy"]?.stringValue)
        body += row("Chain hash of this record", r["hash"]?.stringValue)
        body += row("Algorithm", r["algorithm"]?.stringValue)
        if !round.signoffs.isEmpty { body += "<tr><th>Witnessed by</th><td>\(escape(round.signoffs.joined(separator: "; ")))</td></tr>" }
        body += "</table>\n<p>Check it: <code>tombola verify export.json</code> with the export in this pack.</p>\n"
        return page("Draw \(code), round \(round.number)", body)
    }
}
