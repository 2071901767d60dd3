import DrawEngine
import JSON
import Testing
@testable import App

/// event.html of an event pack (issue #41) over the sample event of `tombola verify --past`: a main
/// draw that excludes a lunch draw's winners, and a link to a draw that is gone.
@Suite("EventPackDocuments")
struct EventPackDocumentsTests {
    func inputs(_ code: String, _ exportText: String) -> AuditPackDocuments.Inputs {
        AuditPackDocuments.Inputs(code: code, exportText: exportText, audit: [], serverKey: nil, software: BinaryIdentity.software, madeAt: 0)
    }

    @Test func aLinkIsCheckedAndAGoneDrawIsMissing() {
        let (main, lunch) = SampleDraw.pastExports()
        #expect(EventPackDocuments.linkedCodes(exportText: main, settings: ["GONE"]) == ["GONE", "LUNCH"])
        let links = ["MAIN": ["GONE", "LUNCH"], "LUNCH": [String]()]
        let walk = EventWalk.walk(from: "MAIN") { links[$0] }
        #expect(walk.missing == ["GONE"])
        let files = EventPackDocuments.files(asked: "MAIN", walk: walk, draws: [inputs("MAIN", main), inputs("LUNCH", lunch)], madeAt: 0)
        #expect(files.first?.name == "event.html")
        #expect(files.contains { $0.name == "draws/LUNCH/export.json" && $0.bytes == Array(lunch.utf8) })
        let event = String(decoding: files[0].bytes, as: UTF8.self)
        #expect(event.contains("<td>GONE</td><td colspan=\"7\" class=\"fail\">missing"))
        #expect(event.contains("no winner of LUNCH won again in MAIN"))
        #expect(event.contains("GONE is missing: not checked"))
        // LUNCH was drawn first: listed first.
        #expect(event.range(of: ">LUNCH</a>")!.lowerBound < event.range(of: ">MAIN</a>")!.lowerBound)
    }

    /// A reverse raffle's pack (FAIRNESS.md §21): the summary and each certificate list who a round
    /// drew out as such, never as winners, and the last round names the last one in as the winner.
    @Test func aReverseRafflesPackSaysDrawnOutAndNamesTheLastOneIn() throws {
        let export = SampleDraw.reverseExport()
        let records = try JSONValue.parse(export)["records"]!.arrayValue!
        let rounds = AuditPackDocuments.rounds(records)
        let last = try #require(rounds.first { $0.lastIn != nil })
        let files = AuditPackDocuments.files(inputs("REV", export))
        let certificate = try #require(files.first { $0.name == "certificates/round-\(last.number).html" })
        let page = String(decoding: certificate.bytes, as: UTF8.self)
        #expect(page.contains("<p><strong>Last one in: \(last.lastIn!) wins</strong></p>"))
        #expect(page.contains("<h2>Drawn out in round \(last.number)</h2>") && !page.contains("<h2>Winners</h2>"))
        let summary = String(decoding: try #require(files.first { $0.name == "summary.html" }).bytes, as: UTF8.self)
        #expect(summary.contains("drawn out: " + last.winners.joined(separator: ", ") + "; the last one in wins: \(last.lastIn!)"))
    }

    @Test func aWinnerOfTheLinkedDrawWhoWinsAgainIsAFailure() throws {
        let (main, lunch) = SampleDraw.pastExports()
        // Tell the check that a lunch winner won main's first round: the export is edited, so the
        // chain check fails too, and the plain check names the person.
        let lunchWinner = try #require(PastWinnersCheck.heldNames(
            (try JSONValue.parse(lunch))["records"]!.arrayValue!, records: 100).sorted().first)
        var export = try JSONValue.parse(main)
        var records = export["records"]!.arrayValue!
        let first = try #require(records.firstIndex { $0["kind"]?.stringValue == "round" })
        guard case .object(var round) = records[first] else { Issue.record("round is no object"); return }
        round["winners"] = .array([.string(lunchWinner)])
        records[first] = .object(round)
        guard case .object(var members) = export else { return }
        members["records"] = .array(records)
        export = .object(members)
        let walk = EventWalk.walk(from: "MAIN") { $0 == "MAIN" ? ["LUNCH"] : [] }
        let event = EventPackDocuments.summary(asked: "MAIN", walk: walk, draws: [
            .init(inputs: inputs("MAIN", export.canonicalString), reading: AuditPackDocuments.read(inputs("MAIN", export.canonicalString))),
            .init(inputs: inputs("LUNCH", lunch), reading: AuditPackDocuments.read(inputs("LUNCH", lunch))),
        ], madeAt: 0)
        #expect(event.contains("\(lunchWinner) won LUNCH and again MAIN (round 1)"))
        #expect(event.contains("A winner of an earlier draw won again in a later one"))
    }
}
