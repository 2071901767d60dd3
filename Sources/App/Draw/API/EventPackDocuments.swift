import Compression
import DrawEngine
import JSON

/// The auditor's pack of an event (issue #41, docs/FAIRNESS.md §20): each draw's own pack (the
/// files `AuditPackDocuments` makes for it alone) in `draws/<code>/`, and `event.html` over them
/// all: the draws in order, how they link, and the check that no winner of a draw won again in a
/// draw that excludes its winners. Pure: the route (`EventPack`) gathers the inputs.
enum EventPackDocuments {
    typealias Docs = AuditPackDocuments

    /// The draws a draw links: its settings' `excludeWinnersOf`, and every draw its rounds left
    /// winners out of (a link removed later still holds for the rounds drawn with it).
    static func linkedCodes(exportText: String, settings: [String]) -> [String] {
        let records = (try? JSONValue.parse(exportText))?["records"]?.arrayValue ?? []
        var codes = settings
        for record in records where record["kind"]?.stringValue == "round" {
            for past in record["pool"]?["pastWinners"]?.arrayValue ?? [] {
                if let code = past["code"]?.stringValue, !codes.contains(code) { codes.append(code) }
            }
        }
        return codes
    }

    struct Draw {
        var inputs: Docs.Inputs
        var reading: Docs.Reading
        var code: String { inputs.code }
        var times: [Int64] { reading.records.compactMap { $0["at"]?.intValue } }
    }

    static func files(asked: String, walk: EventWalk, draws: [Docs.Inputs], madeAt: Int64) -> [(name: String, bytes: [UInt8])] {
        let read = draws.map { Draw(inputs: $0, reading: Docs.read($0)) }
        var files: [(name: String, bytes: [UInt8])] = [("event.html", Array(summary(asked: asked, walk: walk, draws: read, madeAt: madeAt).utf8))]
        for draw in read {
            files += Docs.files(draw.inputs, draw.reading).map { (name: "draws/\(draw.code)/\($0.name)", bytes: $0.bytes) }
        }
        return files
    }

    static func zip(asked: String, walk: EventWalk, draws: [Docs.Inputs], madeAt: Int64) throws -> [UInt8] {
        var writer = ZipWriter()
        for file in files(asked: asked, walk: walk, draws: draws, madeAt: madeAt) { try writer.add(file.name, file.bytes) }
        return try writer.finish()
    }

    // MARK: - The links, checked

    /// One link: draw `from` excludes the winners of draw `to`.
    struct LinkCheck {
        var from: String
        var to: String
        /// The rounds of `from` locked with `to`'s winners left out.
        var rounds: [Int] = []
        var problems: [String] = []
        var notes: [String] = []
        /// `to` is not in the pack (missing, or past the bound).
        var unread = false
    }

    /// For every link, `tombola verify --past`'s check (each round left out exactly the linked
    /// draw's winners as of the record it names) and the plain one: no name among those winners
    /// won that round or took it by a pass. Names, as the record has them: a winner left out by id
    /// under another spelling is a note of the first check, not visible here.
    static func linkChecks(walk: EventWalk, draws: [String: Draw]) -> [LinkCheck] {
        var checks: [LinkCheck] = []
        for code in walk.found {
            guard let draw = draws[code] else { continue }
            for other in walk.links[code] ?? [] {
                var check = LinkCheck(from: code, to: other)
                guard let past = draws[other] else {
                    check.unread = true
                    checks.append(check)
                    continue
                }
                for finding in PastWinnersCheck.check(records: draw.reading.records, others: [other: past.reading.records]) {
                    if let problem = finding.problem { check.problems.append("record \(finding.record): \(problem)") }
                    check.notes += finding.notes
                }
                // The names `other` had won when each round was locked, by round number (a void's replacement relocks).
                var held: [Int: Set<String>] = [:]
                for record in draw.reading.records {
                    guard let number = record["round"]?.intValue.map(Int.init) else { continue }
                    let names: [String]
                    switch record["kind"]?.stringValue {
                    case "round":
                        let exclusion = (record["pool"]?["pastWinners"]?.arrayValue ?? []).first { $0["code"]?.stringValue == other }
                        held[number] = exclusion?["records"]?.intValue.map { PastWinnersCheck.heldNames(past.reading.records, records: Int($0)) }
                        if exclusion != nil, !check.rounds.contains(number) { check.rounds.append(number) }
                        // Who won the round: a reverse raffle's round only its last one in (FAIRNESS.md §21).
                        names = record["reverse"]?.boolValue == true ? (record["lastIn"].map { [Docs.text($0)] } ?? [])
                            : (record["winners"]?.arrayValue ?? []).map(Docs.text)
                    case "pass":
                        names = record["alternate"].map { [Docs.text($0)] } ?? []
                    default:
                        continue
                    }
                    for name in names where held[number]?.contains(name) == true {
                        check.problems.append("\(name) won \(other) and again \(code) (round \(number))")
                    }
                }
                checks.append(check)
            }
        }
        return checks
    }

    // MARK: - event.html

    static func summary(asked: String, walk: EventWalk, draws: [Draw], madeAt: Int64) -> String {
        let escape = Docs.escape
        var byCode: [String: Draw] = [:]
        for draw in draws { byCode[draw.code] = draw }
        // In time order (each draw's first record), the walk's order for ties.
        let ordered = draws.enumerated().sorted { a, b in
            (a.element.times.min() ?? .max, a.offset) < (b.element.times.min() ?? .max, b.offset)
        }.map(\.element)
        let software = draws.first.map { escape($0.inputs.software.summary) } ?? ""
        var body = "<h1>Auditor's pack: the event of draw \(escape(asked))</h1>\n"
        body += "<p>Made \(Docs.time(madeAt)) by \(software). \(draws.count) draws, linked through <code>excludeWinnersOf</code> "
        body += "(a later draw leaves out the winners of the draws it names), followed from draw \(escape(asked)). "
        body += "Each draw's own pack is in <code>draws/&lt;code&gt;/</code>: its summary, export, verification, audit log and certificates.</p>\n"
        body += "<h2>Draws</h2>\n<table><tr><th>Draw</th><th>First and last record (UTC)</th><th>Pools locked (hashes)</th><th>Rounds and winners</th>"
        body += "<th>Voids and passes</th><th>Operators</th><th>Observers</th><th>Verification</th></tr>"
        for draw in ordered {
            let rounds = Docs.rounds(draw.reading.records)
            let winners = rounds.map { round in
                let prize = round.record["prize"]?.stringValue.map { " (\(escape($0)))" } ?? ""
                return "\(round.number)\(prize): \(escape(round.outcome))"
            }
            let changes = rounds.flatMap { round in round.changes.map { "\(round.number): \(escape($0))" } }
            let pools = Set(draw.reading.records.compactMap { $0["poolHash"]?.stringValue }).sorted()
            let verification = draw.reading.verification
            body += "<tr><td><a href=\"draws/\(escape(draw.code))/summary.html\">\(escape(draw.code))</a></td>"
            body += "<td>\(draw.times.min().map(Docs.time) ?? "–")<br>\(draw.times.max().map(Docs.time) ?? "–")</td>"
            body += "<td>\(pools.map { "<code>\($0)</code>" }.joined(separator: "<br>"))</td>"
            body += "<td>\(winners.joined(separator: "<br>"))</td><td>\(changes.joined(separator: "<br>"))</td>"
            body += "<td>\(escape(Docs.operators(draw.inputs.audit).sorted().joined(separator: ", ")))</td>"
            body += "<td>\(escape(Docs.observers(draw.reading.records).sorted().joined(separator: ", ")))</td>"
            body += "<td class=\"\(verification.passed ? "ok" : "fail")\">\(escape(verification.verdict))</td></tr>"
        }
        for code in walk.missing {
            body += "<tr><td>\(escape(code))</td><td colspan=\"7\" class=\"fail\">missing: linked, but not on this server (deleted)</td></tr>"
        }
        body += "</table>\n"
        if !walk.leftOut.isEmpty {
            body += "<p class=\"fail\">Not in this pack (an event pack reads at most \(walk.bound) draws): \(escape(walk.leftOut.joined(separator: ", ")))</p>\n"
        }
        body += linksSection(walk: walk, draws: byCode)
        return Docs.page("Event of draw \(asked): auditor's pack", body)
    }

    static func linksSection(walk: EventWalk, draws: [String: Draw]) -> String {
        let escape = Docs.escape
        let checks = linkChecks(walk: walk, draws: draws)
        var body = "<h2>Links</h2>\n"
        guard !checks.isEmpty else { return body + "<p>Draw \(escape(walk.found.first ?? "")) excludes the winners of no other draw.</p>\n" }
        body += "<table><tr><th>Draw</th><th>Excludes the winners of</th><th>Rounds locked so</th><th>Check</th></tr>"
        for check in checks {
            let verdict: String
            if check.unread {
                verdict = "<span class=\"fail\">\(escape(check.to)) is \(walk.missing.contains(check.to) ? "missing" : "not in this pack"): not checked</span>"
            } else if !check.problems.isEmpty {
                verdict = "<span class=\"fail\">\(escape(check.problems.joined(separator: "; ")))</span>"
            } else if check.rounds.isEmpty {
                verdict = "no round of \(escape(check.from)) locked with the link yet"
            } else {
                verdict = "<span class=\"ok\">no winner of \(escape(check.to)) won again in \(escape(check.from))</span>"
            }
            let notes = check.notes.isEmpty ? "" : "<br>" + check.notes.map(escape).joined(separator: "<br>")
            body += "<tr><td>\(escape(check.from))</td><td>\(escape(check.to))</td>"
            body += "<td>\(check.rounds.map(String.init).joined(separator: ", "))</td><td>\(verdict)\(notes)</td></tr>"
        }
        body += "</table>\n"
        let failed = checks.contains { !$0.problems.isEmpty }
        let checked = checks.filter { !$0.unread && !$0.rounds.isEmpty }.count
        let unread = checks.filter(\.unread).map(\.to)
        var verdict = failed ? "A winner of an earlier draw won again in a later one, or a round did not leave out the winners it should have (above)"
            : "No winner of an earlier draw won again in a later one (\(checked) of \(checks.count) links with rounds checked)"
        if !unread.isEmpty { verdict += "; not checked: \(unread.joined(separator: ", ")) (not in this pack)" }
        body += "<p class=\"\(failed ? "fail" : "ok")\">\(escape(verdict))</p>\n"
        return body
    }
}
