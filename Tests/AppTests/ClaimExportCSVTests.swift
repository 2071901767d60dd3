import DrawEngine
import RoomTestSupport
import Testing
@testable import App

/// The CSV export of a claims round (App's `DrawExportCSV`; the claim flow itself is tested in
/// DrawRoomCoreTests/ClaimRoomStateTests.swift).
@Suite struct ClaimExportCSVTests {
    @Test func theCSVMarksThePassedWinnerAndListsTheAlternateWhoReplacesThem() throws {
        var random = SeededGenerator(seed: 26)
        let ids = ["AAAA2222", "BBBB3333", "CCCC4444", "DDDD5555"]
        var draw = try Draw(config: DrawConfig(pool: .checkin(ids), claim: ClaimSetting(seconds: 30, alternates: 2)))
        var records = [try draw.prepareCommitment(seed: .random(using: &random), at: 1_000)]
        records += try draw.start(contributions: [], at: 2_000)
        records += try draw.stop(at: 3_000, nextSeed: .random(using: &random))
        try draw.reveal()
        guard case .round(let round)? = draw.lastResult?.body, let alternate = round.alternates?.first else {
            Issue.record("no round with alternates")
            return
        }
        let pass = try draw.pass(round: 1, winner: round.winners[0], reason: "not claimed in 30 s", at: 40_000)
        records.append(pass)
        let rows = DrawExportCSV.text(records: records).split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.count == 3)
        #expect(rows[1][3] == round.winners[0].description && rows[1][4] == "yes" && rows[1][5] == "not claimed in 30 s")
        #expect(rows[2][3] == alternate.description && rows[2][4] == "no" && rows[2][6] == round.winners[0].description)
        #expect(rows[2][8] == String(pass.index) && rows[2][11] == pass.hash)
        // In Chinese the reason is said in Chinese; the names column names check-in winners.
        let named = DrawExportCSV.text(records: records, names: [alternate.description: "黄丽"], language: "zh")
            .split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(named[0].first == "\u{FEFF}session" && named[0].last == "name")
        #expect(named[1][5] == "30 秒内未领取" && named[2][12] == "黄丽" && named[1][12] == "")
    }

    /// Every language of the pages says a claim pass's reason its own way (issue #43); Traditional
    /// Chinese by its tags, not as Simplified; a host's own reason and unknown languages as recorded.
    @Test(arguments: [
        ("zh-Hant", "30 秒內未領取"), ("zh-TW", "30 秒內未領取"), ("zh-CN", "30 秒内未领取"), ("ja", "30 秒以内に受け取りなし"),
        ("ko", "30초 안에 미수령"), ("es", "sin reclamar en 30 s"), ("fr", "non réclamé en 30 s"),
        ("de", "nicht abgeholt in 30 s"), ("vi", "không nhận trong 30 giây"), ("ar", "لم تُستلم خلال 30 ث"),
        ("en", "not claimed in 30 s"), ("xx", "not claimed in 30 s"),
    ])
    func aClaimPassesReasonIsSaidInThePagesLanguage(language: String, said: String) {
        #expect(DrawExportCSV.said("not claimed in 30 s", language) == said)
        #expect(DrawExportCSV.said("did not come", language) == "did not come")
    }
}
