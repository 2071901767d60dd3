import Crypto
import DrawRoomCore
import JSON
import Webhooks

/// Turns one draw's broadcasts into webhook events (issue 43, item 4): a revealed round
/// (`result`), a void, an unclaimed win passed on (`pass`), a claim (an item of `claims` newly
/// `claimed`), entries opened or closed (`entrants` after a host's check-in command, its `open`
/// changed). Each event's id is a digest of the draw, the kind and the message, so the same event
/// announced again (a cluster takeover) keeps its id: a receiver drops the repeat.
///
/// Stateful (the claims and the entries' last state), so one per draw, used on its loop.
final class WebhookEventMapper {
    let code: String
    private var open: Bool?
    private var claimed: [Int: Set<String>] = [:]

    init(code: String) {
        self.code = code
    }

    func events(for announcement: DrawAnnouncement, at: Int64) -> [WebhookEvent] {
        switch announcement {
        case .result(let message):
            let round = message["round"]?.intValue ?? 0
            let winners = message["winners"]?.arrayValue ?? []
            let prize = message["prize"]?.stringValue
            let names = winners.map(Self.text).joined(separator: ", ")
            var fields: [String: JSONValue] = ["round": .int(round), "prize": prize.map { .string($0) } ?? .null, "winners": .array(winners),
                                               "replaces": message["replaces"] ?? .null, "hash": message["hash"] ?? .null]
            if message["reverse"]?.boolValue == true {
                // A reverse raffle's round drew its `winners` *out* (FAIRNESS.md §21): said so, never as winners.
                let lastIn = message["lastIn"].flatMap { $0 == .null ? nil : $0 }
                fields["reverse"] = .bool(true)
                fields["lastIn"] = lastIn ?? .null
                let last = lastIn.map(Self.text)
                return [event(.roundRevealed, at: at, data: .object(fields),
                              en: "Round \(round): drawn out \(names)" + (last.map { "; the last one in, \($0), wins" } ?? ""),
                              zh: "第 \(round) 轮淘汰：\(winners.map(Self.text).joined(separator: "、"))" + (last.map { "；最后留下：\($0) 获胜" } ?? ""))]
            }
            let data: JSONValue = .object(fields)
            let label = prize.map { " (\($0))" } ?? ""
            let zhLabel = prize.map { "（\($0)）" } ?? ""
            return [event(.roundRevealed, at: at, data: data,
                          en: "Round \(round)\(label): \(names)",
                          zh: "第 \(round) 轮\(zhLabel)：\(winners.map(Self.text).joined(separator: "、"))")]
        case .void(let message):
            let round = message["round"]?.intValue ?? 0
            let winner = message["winner"].map(Self.text) ?? ""
            let reason = message["reason"]?.stringValue ?? ""
            let data: JSONValue = .object(["round": .int(round), "winner": message["winner"] ?? .null, "reason": .string(reason)])
            return [event(.void, at: at, data: data, en: "Round \(round): \(winner) voided (\(reason)); a replacement is drawn",
                          zh: "第 \(round) 轮：\(winner) 作废（\(reason)），补抽一名")]
        case .pass(let message):
            let round = message["round"]?.intValue ?? 0
            let winner = message["winner"].map(Self.text) ?? ""
            let alternate = message["alternate"].flatMap { $0 == .null ? nil : Self.text($0) }
            let data: JSONValue = .object(["round": .int(round), "winner": message["winner"] ?? .null,
                                           "alternate": message["alternate"] ?? .null, "reason": message["reason"] ?? .null])
            return [event(.pass, at: at, data: data,
                          en: "Round \(round): \(winner) did not claim in time; " + (alternate.map { "passed to \($0)" } ?? "no alternate left"),
                          zh: "第 \(round) 轮：\(winner) 未按时领奖，" + (alternate.map { "转给 \($0)" } ?? "已无候补"))]
        case .claims(let message):
            let round = Int(message["round"]?.intValue ?? 0)
            var known = claimed[round] ?? []
            var out: [WebhookEvent] = []
            for item in message["items"]?.arrayValue ?? [] where item["status"]?.stringValue == "claimed" {
                guard let winner = item["winner"], !known.contains(Self.text(winner)) else { continue }
                known.insert(Self.text(winner))
                var data: [String: JSONValue] = ["round": .int(Int64(round)), "winner": winner]
                if let name = item["name"], name != .null { data["name"] = name }
                let who = item["name"]?.stringValue ?? Self.text(winner)
                out.append(event(.claim, at: at, data: .object(data), en: "Round \(round): \(who) claimed the prize",
                                 zh: "第 \(round) 轮：\(who) 已领奖"))
            }
            claimed = [round: known] // only the latest claim round is announced
            return out
        case .entrantsSettings(let message):
            guard let now = message["open"]?.boolValue else { return [] }
            let before = open
            open = now
            // Unknown before (the shell did not say, `knowEntries`): nothing changed that we know of.
            guard let before, before != now else { return [] }
            let count = message["count"]?.intValue ?? 0
            let data: JSONValue = .object(["open": .bool(now), "entrants": .int(count)])
            return [now ? event(.checkinOpened, at: at, data: data, en: "Entries are open", zh: "报名已开始")
                        : event(.checkinClosed, at: at, data: data, en: "Entries are closed: \(count) entrants",
                                zh: "报名已截止：共 \(count) 人")]
        default:
            return []
        }
    }

    /// What the draw knew before the first message (its `open` flag as loaded), so opening or
    /// closing right after a restart is still an event.
    func knowEntries(open: Bool) {
        self.open = open
    }

    /// `knowEntries` the first time only: the room tells the state before each event it handles.
    func learn(open: Bool) {
        if self.open == nil { self.open = open }
    }

    private func event(_ kind: WebhookEvent.Kind, at: Int64, data: JSONValue, en: String, zh: String) -> WebhookEvent {
        let digest = SHA256.hexDigest(Array("\(code)\n\(kind.rawValue)\n".utf8) + data.canonicalBytes)
        return WebhookEvent(id: String(digest.prefix(32)), kind: kind, draw: code, at: at, data: data, texts: ["en": en, "zh": zh])
    }

    /// A winner's value as a chat shows it (a number or a name).
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .int(let n): String(n)
        default: value.canonicalString
        }
    }
}
