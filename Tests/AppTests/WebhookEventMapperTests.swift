import DrawRoomCore
import JSON
import Testing
import Webhooks
@testable import App

/// A draw's broadcasts as webhook events (WebhookEventMapper): which messages make an event,
/// what it carries, and that ids follow the content (a repeat keeps its id).
@Suite struct WebhookEventMapperTests {
    func json(_ text: String) -> JSONValue { try! JSONValue.parse(text) }

    @Test func aRevealedRoundAVoidAndAPassAreEvents() {
        let mapper = WebhookEventMapper(code: "ABC123")
        let result = mapper.events(for: .result(json(#"{"type":"result","round":3,"winners":["王小明",17],"prize":"一等奖","hash":"ab","replaces":null}"#)), at: 5)
        #expect(result.count == 1 && result[0].kind == .roundRevealed && result[0].draw == "ABC123" && result[0].at == 5)
        #expect(result[0].text("en") == "Round 3 (一等奖): 王小明, 17")
        #expect(result[0].text("zh") == "第 3 轮（一等奖）：王小明、17")
        #expect(result[0].data["winners"] == .array([.string("王小明"), .int(17)]))
        let void = mapper.events(for: .void(json(#"{"type":"void","round":3,"winner":17,"reason":"absent"}"#)), at: 6)
        #expect(void.map(\.kind) == [.void] && void[0].text("en") == "Round 3: 17 voided (absent); a replacement is drawn")
        let pass = mapper.events(for: .pass(json(#"{"type":"pass","round":4,"winner":"AB12","alternate":null,"reason":"not claimed in 30 s"}"#)), at: 7)
        #expect(pass.map(\.kind) == [.pass] && pass[0].text("zh") == "第 4 轮：AB12 未按时领奖，已无候补")
        // Ticks, phases and the rest are not events.
        #expect(mapper.events(for: .cleared, at: 8).isEmpty && mapper.events(for: .viewers(3), at: 8).isEmpty)
        // The same message again has the same id (a receiver drops the repeat); another round another id.
        let again = WebhookEventMapper(code: "ABC123").events(for: .result(json(#"{"type":"result","round":3,"winners":["王小明",17],"prize":"一等奖","hash":"ab","replaces":null}"#)), at: 99)
        #expect(again[0].id == result[0].id && result[0].id != void[0].id && result[0].id.count == 32)
    }

    /// A reverse raffle's round (FAIRNESS.md §21) drew its `winners` out: the message says so, and
    /// the round that left one in names the winner.
    @Test func aReverseRafflesRoundSaysDrawnOutAndTheLastOneIn() {
        let mapper = WebhookEventMapper(code: "ABC123")
        let out = mapper.events(for: .result(json(#"{"type":"result","round":1,"winners":["Ann","Dee"],"reverse":true,"hash":"ab"}"#)), at: 1)
        #expect(out[0].text("en") == "Round 1: drawn out Ann, Dee" && out[0].text("zh") == "第 1 轮淘汰：Ann、Dee")
        #expect(out[0].data["reverse"] == .bool(true) && out[0].data["lastIn"] == .null)
        let last = mapper.events(for: .result(json(#"{"type":"result","round":3,"winners":["Cai"],"reverse":true,"lastIn":"Bo","hash":"cd"}"#)), at: 2)
        #expect(last[0].text("en") == "Round 3: drawn out Cai; the last one in, Bo, wins")
        #expect(last[0].text("zh") == "第 3 轮淘汰：Cai；最后留下：Bo 获胜" && last[0].data["lastIn"] == .string("Bo"))
    }

    @Test func eachClaimIsOneEvent() {
        let mapper = WebhookEventMapper(code: "ABC123")
        let open = #"{"type":"claims","round":2,"items":[{"winner":"A1","status":"open"},{"winner":"B2","status":"open"}]}"#
        #expect(mapper.events(for: .claims(json(open)), at: 1).isEmpty)
        let one = #"{"type":"claims","round":2,"items":[{"winner":"A1","status":"claimed","name":"Ann"},{"winner":"B2","status":"open"}]}"#
        let first = mapper.events(for: .claims(json(one)), at: 2)
        #expect(first.map(\.kind) == [.claim] && first[0].text("en") == "Round 2: Ann claimed the prize" && first[0].data["winner"] == .string("A1"))
        // The next claims message (B2 passed) repeats A1's claim: no second event for it.
        let two = #"{"type":"claims","round":2,"items":[{"winner":"A1","status":"claimed","name":"Ann"},{"winner":"B2","status":"passed","to":null}]}"#
        #expect(mapper.events(for: .claims(json(two)), at: 3).isEmpty)
    }

    @Test func entriesOpenedAndClosedAreEventsOnlyWhenTheyChange() {
        let mapper = WebhookEventMapper(code: "ABC123")
        mapper.knowEntries(open: false)
        let opened = mapper.events(for: .entrantsSettings(json(#"{"type":"entrants","count":0,"open":true}"#)), at: 1)
        #expect(opened.map(\.kind) == [.checkinOpened] && opened[0].text("zh") == "报名已开始")
        // A host's removal while open: the same state, no event.
        #expect(mapper.events(for: .entrantsSettings(json(#"{"type":"entrants","count":4,"open":true}"#)), at: 2).isEmpty)
        let closed = mapper.events(for: .entrantsSettings(json(#"{"type":"entrants","count":5,"open":false}"#)), at: 3)
        #expect(closed.map(\.kind) == [.checkinClosed] && closed[0].text("en") == "Entries are closed: 5 entrants")
        // Not told the state before: the first message is no event.
        #expect(WebhookEventMapper(code: "X").events(for: .entrantsSettings(json(#"{"type":"entrants","count":0,"open":true}"#)), at: 1).isEmpty)
    }
}
