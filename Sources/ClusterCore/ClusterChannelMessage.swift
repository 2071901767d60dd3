/// A message on a draw's fan-out channel `{d:CODE}:ch` (owner → every instance), with the one
/// encoder and the one decoder every publisher and subscriber uses (docs/CLUSTER.md, *Fan-out*):
///
/// - a frame: `KIND\nINSTANCE\nTOKEN\nBODY`, BODY the page protocol's JSON exactly as the
///   owner's own pages get it;
/// - a snapshot: `S` (or `R` from a new owner) `\nINSTANCE\nTOKEN\nSEQ\nEPOCH OFFSET\nSTATE`;
///   the same text without the kind line is what `{d:CODE}:snap` holds (`ClusterSnapshot`).
package enum ClusterChannelMessage: Equatable {
    /// What a frame is: how a follower relays it and what it keeps of it.
    package enum Kind: String, Equatable {
        /// A tick (latest value; kept for pages that join).
        case tick = "T"
        /// The viewer count (latest value; kept for pages that join).
        case viewers = "V"
        /// Another latest-value frame.
        case latest = "L"
        /// A reliable frame (phase, result, commit, config, void, the landing tick…).
        case reliable = "F"
        /// `cleared` (reliable): the kept tick is forgotten.
        case cleared = "C"
        /// Check-in winners' names (reliable): a follower relays their presence to its hosts.
        case checkinWinners = "W"
    }

    case frame(Kind, instance: String, token: Int64, body: String)
    /// `announcesOwner`: a new owner's first snapshot (`R`): every page gets it.
    case snapshot(ClusterSnapshot, instance: String, announcesOwner: Bool)

    package var encoded: [UInt8] {
        switch self {
        case .frame(let kind, let instance, let token, let body):
            Array("\(kind.rawValue)\n\(instance)\n\(token)\n\(body)".utf8)
        case .snapshot(let snapshot, let instance, let announcesOwner):
            Array("\(announcesOwner ? "R" : "S")\n\(snapshot.stored(by: instance))".utf8)
        }
    }

    /// nil for anything that is not a message of this format.
    package static func decode(_ payload: [UInt8]) -> ClusterChannelMessage? {
        let text = String(decoding: payload, as: UTF8.self)
        guard let newline = text.firstIndex(of: "\n") else { return nil }
        let kind = text[..<newline]
        let rest = text[text.index(after: newline)...]
        if kind == "S" || kind == "R" {
            guard let (snapshot, instance) = ClusterSnapshot.parse(rest) else { return nil }
            return .snapshot(snapshot, instance: instance, announcesOwner: kind == "R")
        }
        let parts = rest.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard let frameKind = Kind(rawValue: String(kind)), parts.count == 3, let token = Int64(parts[1]) else { return nil }
        return .frame(frameKind, instance: String(parts[0]), token: token, body: String(parts[2]))
    }
}

/// A snapshot as the owner publishes and stores it: who published it, in what order, after
/// which log entry, and the public `state` message.
package struct ClusterSnapshot: Equatable {
    package var token: Int64
    package var seq: Int64
    package var epoch: String
    package var offset: String
    package var text: String

    package init(token: Int64, seq: Int64, epoch: String, offset: String, text: String) {
        self.token = token
        self.seq = seq
        self.epoch = epoch
        self.offset = offset
        self.text = text
    }

    /// `"<instance>\n<token>\n<seq>\n<epoch> <offset>\n<state>"`, as `{d:CODE}:snap` holds it.
    package func stored(by instance: String) -> String {
        "\(instance)\n\(token)\n\(seq)\n\(epoch) \(offset)\n\(text)"
    }

    /// The snapshot and its publisher's instance from `stored(by:)`'s text; nil if malformed.
    package static func parse(_ text: Substring) -> (ClusterSnapshot, instance: String)? {
        let parts = text.split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count == 5, let token = Int64(parts[1]), let seq = Int64(parts[2]) else { return nil }
        let position = parts[3].split(separator: " ", omittingEmptySubsequences: false)
        guard position.count == 2 else { return nil }
        let snapshot = ClusterSnapshot(token: token, seq: seq, epoch: String(position[0]), offset: String(position[1]),
                                       text: String(parts[4]))
        return (snapshot, String(parts[0]))
    }
}
