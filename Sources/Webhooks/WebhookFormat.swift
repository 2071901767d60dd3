import JSON

/// What a webhook's body looks like: Tombola's own signed JSON, or the message a chat's
/// incoming webhook takes (those carry the event's one-line `text`; they are not signed, the
/// chat's secret URL being their authority).
public enum WebhookFormat: String, Sendable, CaseIterable {
    case generic
    case slack
    case teams
    case discord
    case wecom

    /// Whether deliveries carry `Tombola-Signature` (the chats ignore it).
    public var signed: Bool { self == .generic }

    public func body(_ event: WebhookEvent, language: String = "en") -> [UInt8] {
        let text = event.text(language)
        let value: JSONValue
        switch self {
        case .generic: value = event.json
        // Slack and Microsoft Teams (Workflows and the classic connector) both take `text`.
        case .slack, .teams: value = .object(["text": .string(text)])
        // Discord: `content`, at most 2,000 characters.
        case .discord: value = .object(["content": .string(String(text.prefix(2000)))])
        // WeCom (企业微信) group robot: a text message, at most 2,048 bytes.
        case .wecom: value = .object(["msgtype": .string("text"), "text": .object(["content": .string(Self.utf8Prefix(text, 2048))])])
        }
        return value.canonicalBytes
    }

    static func utf8Prefix(_ text: String, _ limit: Int) -> String {
        var out = ""
        var count = 0
        for character in text {
            count += character.utf8.count
            if count > limit { break }
            out.append(character)
        }
        return out
    }
}
