import JSON

/// A page's report that the history it was shown contradicts what it saw before
/// (`{"type":"witness","reason":…,"heads":[…]}`, docs/PROTOCOL.md "Witness reports"). The
/// server trusts it for nothing: it relays a count and the reported heads to the host pages.
public struct WitnessReport: Sendable, Equatable {
    /// A record of the chain as the page names it: its `index` and `hash`.
    public struct Head: Sendable, Equatable {
        public let index: Int64
        public let hash: String
    }

    static let reasons: Set<String> = ["fork", "rewritten"]
    /// The longest frame a report may be (two heads fit in well under this).
    static let maxBytes = 512

    public let reason: String
    /// The head the page remembered, then (optionally) what the server showed in its place.
    public let heads: [Head]

    /// Reads a `witness` message (its whole text is `bytes` long); anything else is `bad_witness`.
    static func parse(_ json: JSONValue, bytes: Int) throws(MessageError) -> WitnessReport {
        let bad = MessageError(code: "bad_witness", detail: "witness needs reason fork or rewritten and 1–2 heads {index, hash}")
        guard bytes <= maxBytes, let reason = json["reason"]?.stringValue, reasons.contains(reason),
              let list = json["heads"]?.arrayValue, (1...2).contains(list.count) else { throw bad }
        var heads: [Head] = []
        for item in list {
            guard let index = item["index"]?.intValue, (0...(1 << 53)).contains(index),
                  let hash = item["hash"]?.stringValue, hash.utf8.count == 64,
                  hash.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { throw bad }
            heads.append(Head(index: index, hash: hash))
        }
        return WitnessReport(reason: reason, heads: heads)
    }

    /// What the host pages get: `{"type":"witness","count":n,"reason":…,"heads":[…]}`.
    func relay(count: Int) -> JSONValue {
        JSONValue.object([
            "type": .string("witness"), "count": .int(Int64(count)), "reason": .string(reason),
            "heads": .array(heads.map { .object(["index": .int($0.index), "hash": .string($0.hash)]) }),
        ])
    }
}

/// The room's reports since the server started: how many connections reported, and when each
/// last did (one report a connection per `interval`; the rest are dropped).
struct WitnessLedger: Sendable {
    static let interval: Duration = .seconds(10)
    private(set) var count = 0
    /// The latest relay, for a host page that authenticates later.
    var latest: JSONValue?
    private var last: [UInt64: ContinuousClock.Instant] = [:]

    /// Whether a report of connection `id` at `now` is relayed; `connected` prunes the record.
    mutating func admit(_ id: UInt64, at now: ContinuousClock.Instant, connected: (UInt64) -> Bool) -> Bool {
        if let at = last[id], now - at < Self.interval { return false }
        if last[id] == nil { count += 1 }
        last[id] = now
        if last.count > 1024 { last = last.filter { connected($0.key) } }
        return true
    }
}

extension DrawRoomState {
    /// A page's witness report: relayed with the count to every host page of the room.
    mutating func witnessed(_ report: WitnessReport, from id: UInt64, at time: Time, _ actions: inout [Action]) {
        let members = self.members
        guard witnesses.admit(id, at: time.instant, connected: { members[$0] != nil }) else { return }
        let relay = report.relay(count: witnesses.count)
        witnesses.latest = relay
        for (member, info) in members where info.isHost { actions.append(.send(.witness(relay), to: member)) }
    }
}
