@testable import App
@testable import DrawRoomCore
import HTTPCore
import JSON
import Testing
import TestSupport

@Suite("Check-in form, book and presence codes")
struct CheckinUnitTests {
    static let settings = CheckinSettings.parse(try! JSONValue.parse(
        #"{"fields":[{"key":"ticket","label":"Ticket","required":true,"unique":true,"maxLength":8},{"key":"team","label":"Team"}]}"#),
        base: CheckinSettings())!

    func parse(_ text: String) -> Result<(form: CheckinForm, code: String?), CheckinForm.Refusal> {
        CheckinForm.parse(try! JSONValue.parse(text), settings: Self.settings)
    }

    /// A join's Idempotency-Key (issue 33 §4): one key is always the same well-formed device token,
    /// another key another; bad keys are refused with their own code.
    @Test func aJoinKeyGivesOneDeviceTokenAndBadKeysAreRefused() throws {
        let key = "0123456789abcdef0123456789abcdef"
        let token = DeviceToken.token(forJoinKey: key)
        #expect(DeviceToken.isWellFormed(token) && token == DeviceToken.token(forJoinKey: key))
        #expect(token != DeviceToken.token(forJoinKey: "0123456789abcdef0123456789abcdeF"))
        #expect(try DeviceToken.joinKey(in: ["Idempotency-Key": key]) == key)
        #expect(try DeviceToken.joinKey(in: HTTPHeaders()) == nil)
        var twice: HTTPHeaders = ["Idempotency-Key": key]
        twice.add(name: "Idempotency-Key", value: key)
        for headers in [["Idempotency-Key": "short"], ["Idempotency-Key": String(repeating: "a", count: 65)],
                        ["Idempotency-Key": "a key with spaces 123"], ["Idempotency-Key": "\u{e9}" + key], twice] as [HTTPHeaders] {
            #expect(throws: CommandFailure(code: "bad_idempotency_key")) { try DeviceToken.joinKey(in: headers) }
        }
    }

    @Test func namesAreTrimmedAndNFCNormalisedSoOneNameIsOneName() throws {
        // "é" as e + combining acute (NFD) becomes the one precomposed scalar.
        let form = try parse(#"{"name":"  Re\u0301my\u200b ","fields":{"ticket":" A-17 "}}"#).get().form
        #expect(form.name == "R\u{e9}my")
        #expect(form.name.unicodeScalars.count == 4)
        #expect(form.fields.map(\.value) == ["A-17"])
    }

    @Test(arguments: [
        (#"{"fields":{"ticket":"1"}}"#, "bad_name", nil),
        (#"{"name":"   ","fields":{"ticket":"1"}}"#, "bad_name", nil),
        (#"{"name":"a\u0007b","fields":{"ticket":"1"}}"#, "bad_name", nil),
        (#"{"name":"a\u202eb","fields":{"ticket":"1"}}"#, "bad_name", nil),
        (#"{"name":"Ann"}"#, "missing_field", "ticket"),
        (#"{"name":"Ann","fields":{"ticket":"123456789"}}"#, "bad_field", "ticket"),
        (#"{"name":"Ann","fields":{"ticket":"1","age":"3"}}"#, "bad_field", "age"),
        (#"{"name":"Ann","fields":{"ticket":["1"]}}"#, "bad_field", "ticket"),
        (#"{"name":"Ann","fields":"x"}"#, "bad_field", nil),
        (#"{"name":"Ann","fields":{"ticket":17}}"#, "bad_field", "ticket"),
        (#"{"name":"Ann","fields":{"ticket":"1","team":true}}"#, "bad_field", "team"),
        (#"{"name":"\u200d","fields":{"ticket":"1"}}"#, "bad_name", nil),
        (#"{"name":"\u200d\u2060\u0301\u00ad","fields":{"ticket":"1"}}"#, "bad_name", nil),
        (#"[1]"#, "bad_json", nil),
    ] as [(String, String, String?)])
    func badFormsGetAClearCode(body: String, code: String, field: String?) {
        guard case .failure(let refusal) = parse(body) else { Issue.record("accepted \(body)"); return }
        #expect(refusal.code == code)
        #expect(refusal.field == field)
    }

    @Test func aNameOfSixtyCharactersFitsAndSixtyOneDoNot() throws {
        let sixty = String(repeating: "名", count: 60)
        #expect(try parse(#"{"name":"\#(sixty)","fields":{"ticket":"1"}}"#).get().form.name == sixty)
        guard case .failure(let refusal) = parse(#"{"name":"\#(sixty)x","fields":{"ticket":"1"}}"#) else {
            Issue.record("61 characters accepted")
            return
        }
        #expect(refusal.code == "bad_name")
    }

    func entry(_ id: String, device: String, ticket: String) -> CheckinEntry {
        CheckinEntry(id: id, seq: 0, name: "n", fields: ["ticket": ticket], device: device, joinedAt: 0)
    }

    @Test func aDeviceAndAUniqueValueAreTakenFromReservationOnAndFreedWhenTheWriteFails() throws {
        var book = CheckinBook(settings: Self.settings, entries: [])
        let form = try parse(#"{"name":"Ann","fields":{"ticket":"a-1"}}"#).get().form
        #expect(book.refusal(form, device: "d1") == nil)
        let first = entry("ID1", device: "d1", ticket: "a-1")
        book.reserve(first)
        #expect(book.refusal(form, device: "d1")?.code == "already_joined")
        let upper = try parse(#"{"name":"Bob","fields":{"ticket":"A-1"}}"#).get().form
        #expect(book.refusal(upper, device: "d2") == CheckinForm.Refusal(code: "duplicate_value", field: "ticket"))
        book.settle(first, stored: false)
        #expect(book.refusal(upper, device: "d1") == nil)
        book.reserve(first)
        book.settle(first, stored: true)
        #expect(book.activeIDs == ["ID1"])
        book.remove(id: "ID1", reason: "left")
        #expect(book.activeIDs == [])
        // The ticket is free again, the removed device stays known.
        #expect(book.refusal(upper, device: "d2") == nil)
        #expect(book.refusal(upper, device: "d1")?.code == "already_joined")
    }

    @Test func erasingForgetsPersonalFieldsAndKeepsPublicIDs() {
        var book = CheckinBook(settings: Self.settings, entries: [entry("ID1", device: "d1", ticket: "1"),
                                                                  entry("ID2", device: "d2", ticket: "2")])
        book.erase()
        #expect(book.entries.map(\.id) == ["ID1", "ID2"])
        #expect(book.entries.allSatisfy { $0.name == nil && $0.fields.isEmpty && $0.device == nil && !$0.isActive })
        #expect(book.activeCount == 0)
    }

    @Test func pagesAreNewestFirstAndSearchMatchesNameIDAndFields() {
        let entries = (1...30).map { CheckinEntry(id: "ID\($0)", seq: $0, name: "Person \($0)", fields: ["ticket": "T\($0)"],
                                                  device: "d\($0)", joinedAt: 0) }
        let book = CheckinBook(settings: Self.settings, entries: entries)
        let page = book.page(query: "", offset: 10, limit: 5, includeRemoved: false)
        #expect(page.total == 30 && page.items.map(\.seq) == [20, 19, 18, 17, 16])
        #expect(book.page(query: "t3", offset: 0, limit: 50, includeRemoved: false).items.map(\.seq) == [30, 3])
        #expect(book.page(query: "PERSON 7", offset: 0, limit: 50, includeRemoved: false).total == 1)
    }

    @Test func presenceCodesChangeEveryThirtySecondsAndTheOldOneExpiresAfterTenSeconds() {
        let codes = PresenceCodes(secret: Array(repeating: 7, count: 32))
        let start: Int64 = 1_800_000_000_000 - 1_800_000_000_000 % 30_000
        let (code, changesAt) = codes.current(at: start + 1_000)
        #expect(code.count == 4 && code.allSatisfy(\.isNumber))
        #expect(changesAt == start + 30_000)
        #expect(codes.accepts(code, at: start + 29_999))
        #expect(codes.accepts(code, at: start + 39_999))
        #expect(!codes.accepts(code, at: start + 40_000) || codes.current(at: start + 40_000).code == code)
        #expect(!codes.accepts("abcd", at: start))
        // Different windows give different codes most of the time (never all the same).
        #expect(Set((0..<20).map { codes.code(window: Int64($0)) }).count > 10)
    }

    @Test func settingsRefuseBadFields() {
        for text in [#"{"fields":[{"key":"Ticket"}]}"#, #"{"fields":[{"key":"a"},{"key":"a"}]}"#,
                     #"{"fields":[{"key":"a","maxLength":0}]}"#, #"{"fields":[{"key":"a","unique":"yes"}]}"#,
                     #"{"presence":1}"#, #"{"fields":[\#(Array(repeating: #"{"key":"k"}"#, count: 9).enumerated().map { #"{"key":"k\#($0.offset)"}"# }.joined(separator: ","))]}"#] {
            #expect(CheckinSettings.parse(try! JSONValue.parse(text), base: CheckinSettings()) == nil, "\(text)")
        }
    }

    @Test func csvCellsCannotRunAsFormulas() {
        #expect(CheckinCSV.cell("=1+1") == "'=1+1")
        #expect(CheckinCSV.cell("a,b") == "\"a,b\"")
        #expect(CheckinCSV.cell("Ann") == "Ann")
    }
}
