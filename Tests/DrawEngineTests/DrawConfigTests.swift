import JSON
import Testing
@testable import DrawEngine

@Suite struct DrawConfigTests {
    static let badSettings: [(String, DrawConfig, DrawError)] = [
        ("from above to", DrawConfig(pool: .range(from: 5, to: 4)), .invalidRange),
        ("bound beyond 2^53", DrawConfig(pool: .range(from: 1, to: Int64(1) << 60)), .invalidRange),
        ("one number", DrawConfig(pool: .range(from: 3, to: 3)), .poolTooSmall),
        ("10^12 + 1 numbers", DrawConfig(pool: .range(from: 0, to: 1_000_000_000_000)), .poolTooLarge),
        ("one name", DrawConfig(pool: .list(["Ann", " Ann ", ""])), .poolTooSmall),
        ("100,001 names", DrawConfig(pool: .list((0...100_000).map { "n\($0)" })), .tooManyEntrants),
        ("control character", DrawConfig(pool: .list(["Ann", "B\u{7}ob"])), .badEntrant),
        ("201-byte name", DrawConfig(pool: .list(["Ann", String(repeating: "x", count: 201)])), .badEntrant),
        ("exclusion below range", DrawConfig(exclude: [.number(0)]), .badExclusion),
        ("exclusion above range", DrawConfig(exclude: [.number(501)]), .badExclusion),
        ("exclusion not a number", DrawConfig(exclude: [.name("seven")]), .badExclusion),
        ("unknown excluded name", DrawConfig(pool: .list(["Ann", "Bob"]), exclude: [.name("Eve")]), .badExclusion),
        ("every number excluded", DrawConfig(pool: .range(from: 1, to: 3), exclude: [1, 2, 3, 2].map(DrawValue.number)), .allExcluded),
        ("every name excluded", DrawConfig(pool: .list(["Ann", "Bob"]), exclude: [.name("Ann"), .name(" Bob")]), .allExcluded),
        ("perStop zero", DrawConfig(perStop: .count(0)), .badPerStop),
        ("perStop too large", DrawConfig(perStop: .count(100_001)), .badPerStop),
        ("prize count zero", DrawConfig(prizes: [Prize(name: "1st", count: 0)]), .badPrize),
        ("prize without name", DrawConfig(prizes: [Prize(name: "  ", count: 1)]), .badPrize),
        ("prize index outside", DrawConfig(prizes: [Prize(name: "1st", count: 1)], prize: 1), .badPrize),
        ("prize index without prizes", DrawConfig(prize: 2), .badPrize),
    ]

    @Test(arguments: badSettings.indices)
    func badSettingIsRejectedAndChangesNothing(case index: Int) throws {
        let (name, config, expected) = Self.badSettings[index]
        var harness = try Harness(DrawConfig(pool: .range(from: 1, to: 500), exclude: [.number(9)], perStop: .count(2)), seed: 11)
        try harness.round()
        let before = Snapshot(harness.draw)
        #expect(throws: expected, "\(name)") { try harness.draw.configure(config) }
        #expect(Snapshot(harness.draw) == before, "\(name)")
        #expect(throws: expected, "\(name)") { _ = try Draw(config: config) }
    }

    @Test func namesAreTrimmedSplitAtLineBreaksAndDuplicatesReported() throws {
        var draw = try Draw()
        let duplicates = try draw.configure(DrawConfig(pool: .list(["  Ann \r\nBob\n\n\tZoë\u{3000}", "Bob", "Ann", "Ann"])))
        #expect(draw.config.pool == .list(["Ann", "Bob", "Zoë"]))
        #expect(duplicates == ["Bob", "Ann"])
        #expect(draw.duplicates == ["Bob", "Ann"])
        #expect(draw.remaining == 3)
    }

    @Test func namesCompareAsBytesWithoutUnicodeNormalization() throws {
        let composed = "Zo\u{e9}", decomposed = "Zoe\u{301}"
        let draw = try Draw(config: DrawConfig(pool: .list([composed, decomposed])))
        #expect(draw.remaining == 2)
        #expect(draw.duplicates.isEmpty)
    }

    @Test func exclusionsAcceptDigitStringsForRangesAndAreDeduplicated() throws {
        let draw = try Draw(config: DrawConfig(pool: .range(from: 1, to: 10), exclude: [.name(" 3"), .number(3), .number(4)]))
        #expect(draw.config.exclude == [.number(3), .number(4)])
        #expect(draw.remaining == 8)
    }

    @Test func decodesTheProtocolConfigObject() throws {
        let text = #"{"pool":{"kind":"range","from":1,"to":500},"exclude":[7],"perStop":"all","repeats":true,"prizes":[{"name":"一等奖","count":1}],"prize":0}"#
        let config = try DrawConfig(json: JSONValue.parse(text))
        #expect(config == DrawConfig(pool: .range(from: 1, to: 500), exclude: [.number(7)], perStop: .all, repeats: true,
                                     prizes: [Prize(name: "一等奖", count: 1)], prize: 0))
        let list = try DrawConfig(json: JSONValue.parse(#"{"pool":{"kind":"list","text":"Ann\nBob"}}"#))
        #expect(list.pool == .list(["Ann\nBob"]))
        #expect(list.perStop == .count(1))
        let again = try DrawConfig(json: JSONValue.parse(config.json.canonicalBytes))
        #expect(again == config)
    }

    @Test func theDisplayModeIsReadPerDrawAndPerPrizeAndWrittenOnlyWhenChosen() throws {
        let text = #"{"pool":{"kind":"list","text":"Ann"},"mode":"wheel","prizes":[{"name":"A","count":1,"mode":"reels"},{"name":"B","count":1}]}"#
        let config = try DrawConfig(json: JSONValue.parse(text))
        #expect(config.mode == .wheel)
        #expect(config.prizes.map(\.mode) == [.reels, nil])
        #expect(try DrawConfig(json: JSONValue.parse(config.json.canonicalBytes)) == config)
        // A draw that never chose one keeps the settings it had (no "mode" key, the same hash).
        let plain = try DrawConfig(json: JSONValue.parse(#"{"pool":{"kind":"range","from":1,"to":9}}"#))
        #expect(plain.mode == .number)
        #expect(plain.json["mode"] == nil)
        #expect(config.json["prizes"]?.arrayValue?.map { $0["mode"]?.stringValue } == ["reels", nil])
    }

    @Test(arguments: [#"{"mode":"carousel"}"#, #"{"mode":3}"#, #"{"prizes":[{"name":"A","count":1,"mode":"Wheel"}]}"#])
    func anUnknownDisplayModeIsRefusedAtItsPath(text: String) throws {
        #expect {
            try DrawConfig(json: JSONValue.parse(text))
        } throws: { error in
            let path = (error as? DrawConfigDecodingError)?.path ?? ""
            return path == "mode" || path == "prizes.Index 0.mode"
        }
    }

    @Test func theNameMaskIsReadAndWrittenOnlyWhenChosen() throws {
        let config = try DrawConfig(json: JSONValue.parse(#"{"pool":{"kind":"list","text":"Ann"},"mask":"names"}"#))
        #expect(config.mask == .names)
        #expect(config.json["mask"]?.stringValue == "names")
        #expect(try DrawConfig(json: JSONValue.parse(config.json.canonicalBytes)) == config)
        let plain = try DrawConfig(json: JSONValue.parse(#"{"mask":"none"}"#))
        #expect(plain.mask == .none)
        #expect(plain.json["mask"] == nil)
    }

    @Test(arguments: [#"{"mask":"all"}"#, #"{"mask":true}"#, #"{"mask":"Names"}"#])
    func anUnknownNameMaskIsRefusedAtItsPath(text: String) throws {
        #expect {
            try DrawConfig(json: JSONValue.parse(text))
        } throws: { error in (error as? DrawConfigDecodingError)?.path == "mask" }
    }

    @Test func everyErrorHasADistinctSnakeCaseCode() {
        let codes = DrawError.allCases.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { $0.allSatisfy { $0 == "_" || $0.isLowercase } })
    }
}
