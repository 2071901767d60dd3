import JSON

/// One thing that happened in a draw, as webhooks carry it.
public struct WebhookEvent: Sendable, Equatable {
    /// `round.revealed`, `claim`, `pass`, `void`, `checkin.opened`, `checkin.closed`.
    public enum Kind: String, Sendable, CaseIterable {
        case roundRevealed = "round.revealed"
        case claim
        case pass
        case void
        case checkinOpened = "checkin.opened"
        case checkinClosed = "checkin.closed"
    }

    /// Unique per event (the receiver's idempotency key: a retried delivery keeps it).
    public var id: String
    public var kind: Kind
    public var draw: String
    /// Unix milliseconds.
    public var at: Int64
    /// The event's details (for `round.revealed`: `round`, `prize`, `winners`).
    public var data: JSONValue
    /// One line for a chat (Slack, Teams, Discord, WeCom) by language (`en`, `zh`).
    public var texts: [String: String]

    public init(id: String, kind: Kind, draw: String, at: Int64, data: JSONValue, texts: [String: String]) {
        self.id = id
        self.kind = kind
        self.draw = draw
        self.at = at
        self.data = data
        self.texts = texts
    }

    /// The line in `language`, else in English.
    public func text(_ language: String) -> String { texts[language] ?? texts["en"] ?? kind.rawValue }

    /// The generic format's body: `{"id","type","draw","at","data"}`, canonical JSON.
    public var json: JSONValue {
        .object(["id": .string(id), "type": .string(kind.rawValue), "draw": .string(draw), "at": .int(at), "data": data])
    }
}
