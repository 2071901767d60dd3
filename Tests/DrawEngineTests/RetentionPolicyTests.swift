import JSON
import Testing
@testable import DrawEngine

/// Retention (issue #41): when the sweep erases a draw's personal data, decided from the
/// settings, the last activity and the clock given, so no test waits a day.
@Suite struct RetentionPolicyTests {
    static let day = RetentionPolicy.secondsPerDay
    static let last = 1_800_000_000.0

    @Test func dueIsTheLastActivityPlusTheDays() {
        #expect(RetentionPolicy.dueAt(days: 1, lastActivity: Self.last) == Self.last + Self.day)
        #expect(RetentionPolicy.dueAt(days: 3650, lastActivity: Self.last) == Self.last + 3650 * Self.day)
    }

    /// (days, personal entrants, entries open, seconds after the last activity, due?)
    static let cases: [(Int?, Int, Bool, Double, Bool)] = [
        (7, 3, false, 7 * day - 1, false),    // a second early
        (7, 3, false, 7 * day, true),         // on the moment
        (7, 3, false, 400 * day, true),       // long overdue (the server was down): at the next sweep
        (nil, 3, false, 400 * day, false),    // no retention set: kept until the host erases
        (7, 0, false, 400 * day, false),      // nothing left to erase (erased already, or a list pool)
        (7, 3, true, 400 * day, false),       // entries open: the draw is in use
    ]

    @Test(arguments: cases.indices) func theSweepErasesOnlyWhatIsDue(index: Int) {
        let (days, personal, open, after, due) = Self.cases[index]
        #expect(RetentionPolicy.isDue(days: days, lastActivity: Self.last, personalEntrants: personal, entriesOpen: open,
                                      now: Self.last + after) == due, "case \(index)")
    }

    @Test func theSettingIsReadWrittenOnlyWhenSetAndChecked() throws {
        let config = try DrawConfig(json: JSONValue.parse(#"{"pool":{"kind":"checkin"},"retentionDays":30}"#))
        #expect(config.retentionDays == 30)
        #expect(config.json["retentionDays"]?.intValue == 30)
        #expect(try DrawConfig(json: JSONValue.parse(config.json.canonicalBytes)) == config)
        #expect(try DrawConfig(json: JSONValue.parse(#"{"retentionDays":null}"#)).json["retentionDays"] == nil)
        #expect { try DrawConfig(json: JSONValue.parse(#"{"retentionDays":1.5}"#)) } throws: {
            ($0 as? DrawConfigDecodingError)?.path == "retentionDays"
        }
        for days in [0, 3651, -1] {
            var bad = DrawConfig.standard
            bad.retentionDays = days
            #expect(throws: DrawError.badRetention) { _ = try Draw(config: bad) }
        }
        // Not part of the pool: a draw with rounds takes it, and its lock stays the same.
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 50)), seed: 5)
        try harness.round()
        let poolHash = harness.draw.commit?.poolHash
        var kept = harness.draw.config
        kept.retentionDays = 3650
        try harness.draw.configure(kept)
        #expect(harness.draw.config.retentionDays == 3650)
        #expect(harness.draw.commit?.poolHash == poolHash)
    }
}
