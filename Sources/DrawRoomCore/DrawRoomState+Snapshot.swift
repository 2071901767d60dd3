import JSON
import Crypto
import DrawEngine

/// What pages are sent about the room: the `state` snapshot (built once per variant and shared),
/// the `config` message.
extension DrawRoomState {
    /// The `state` snapshot of one page, as text. `key` is set when the text is shared by every
    /// page of its variant until something it shows changes (a new `generation`).
    public struct StateSnapshot: Sendable {
        public struct Key: Hashable, Sendable {
            public var variant: SnapshotVariant
            public var generation: Int
        }

        public var text: String
        public var key: Key?
    }

    /// What differs between members' snapshots.
    public struct SnapshotVariant: Hashable, Sendable {
        public var host: Bool
        /// nil before any round here; else whether the member's entropy is in the frozen set.
        public var contributed: Bool?
        /// Check-in: the hash of the member's device when it has an entry here (its `me`);
        /// nil shares the frame with every page without one.
        public var device: String?

        public init(host: Bool, contributed: Bool? = nil, device: String? = nil) {
            self.host = host
            self.contributed = contributed
            self.device = device
        }
    }

    // MARK: Messages out

    func announcePhase(_ phase: DrawPhase, _ actions: inout [Action]) {
        actions.append(.announce(.phase(phase)))
    }

    /// The `config` message after `configure`: the settings and the counts that follow from them.
    public func configMessageText() -> String {
        let message: JSONValue = .object([
            "type": .string("config"),
            "remaining": .int(Int64(clamping: draw.remaining)),
            "exhausted": .bool(draw.isExhausted),
            "currentPrize": draw.currentPrize.map { .int(Int64($0)) } ?? .null,
            "prizesDone": .bool(draw.prizesDone),
            "round": .int(Int64(draw.nextRound)),
        ])
        var text = message.canonicalString
        text.removeFirst()
        return "{\"config\":" + summaryText + "," + text
    }

    /// What member `id`'s snapshot shows (nil: the public REST view, a viewer that sent nothing).
    public func snapshotVariant(for id: UInt64?) -> SnapshotVariant {
        let member = id.flatMap { members[$0] }
        var contributed: Bool?
        if let id, let frozenMembers { contributed = frozenMembers.contains(id) }
        var device: String?
        if let id { device = checkin.device(ofMember: id) }
        return SnapshotVariant(host: member?.isHost == true, contributed: contributed, device: device)
    }

    /// The `state` snapshot for member `id`: built on the first join after a change and shared
    /// by every join of the same variant until the next change.
    public mutating func snapshot(for id: UInt64?) -> StateSnapshot {
        let variant = snapshotVariant(for: id)
        let key = StateSnapshot.Key(variant: variant, generation: snapshotGeneration)
        if let text = snapshots[variant] { return StateSnapshot(text: text, key: key) }
        let text = buildStateText(variant)
        // A checked-in phone's snapshot (its own `me`) is nobody else's: not kept, so the cache
        // holds a handful of shared variants, not one per entrant.
        guard variant.device == nil, !claims.isOpen else { return StateSnapshot(text: text, key: nil) }
        snapshots[variant] = text
        return StateSnapshot(text: text, key: key)
    }

    /// The `state` snapshot for member `id` (nil: the public REST view), built afresh.
    public func stateText(for id: UInt64?) -> String {
        buildStateText(snapshotVariant(for: id))
    }

    func buildStateText(_ variant: SnapshotVariant) -> String {
        let contributed: JSONValue = variant.contributed.map { .bool($0) } ?? .null
        let draw = self.draw
        let commit: JSONValue = draw.commit.map {
            .object(["round": .int(Int64($0.round)), "commitment": .string($0.commitment), "poolHash": .string($0.poolHash)])
        } ?? .null
        let listed = BoardSummary.listed(visibleBoard)
        var state: JSONValue = .object([
            "type": .string("state"),
            "code": .string(code),
            "role": .string(variant.host ? "host" : "viewer"),
            "phase": .string(draw.phase.rawValue),
            "remaining": .int(Int64(clamping: draw.remaining)),
            "exhausted": .bool(draw.isExhausted),
            "currentPrize": draw.currentPrize.map { .int(Int64($0)) } ?? .null,
            "prizesDone": .bool(draw.prizesDone),
            "round": .int(Int64(draw.nextRound)),
            "commit": commit,
            "plan": draw.armed.json,
            // While the slow-down runs, the new round is stored but not yet announced. The board is
            // bounded (`BoardSummary`): the latest rounds with their first winners; the rest is paged.
            "rounds": .array(listed.rounds.map { $0.summaryJSON() }),
            "olderRounds": .int(Int64(listed.older)),
            "result": draw.phase == .stopping ? .null : (draw.lastResult?.snapshotResult() ?? .null),
            "viewers": .int(Int64(viewerCount)),
            "tick": lastTick.map(DrawWire.json) ?? .null,
            "interrupted": interrupted.map { .object(["round": .int(Int64($0))]) } ?? .null,
            "algorithm": .string(Fairness.algorithm),
            "contributed": contributed,
            "checkin": checkinState(host: variant.host, device: variant.device),
            "claims": claimsJSON(at: now),
            "beacon": beaconJSON,
        ])
        // Only when set: a draw that was never archived keeps the snapshot it always had.
        if archived, case .object(var members) = state {
            members["archived"] = .bool(true)
            state = .object(members)
        }
        // Only in a private list's draw: the listed winners' names (masked but for the host), docs/FAIRNESS.md §22.
        if isPrivateList, case .object(var members) = state {
            members["names"] = .object(winnerNames(forHost: variant.host))
            state = .object(members)
        }
        // Only when any: the session's observers' sign-offs (issue #41), and whether one stands for the
        // lock of the round about to start (four eyes: Start waits for it).
        if !draw.signoffs.isEmpty || draw.config.foureyes, case .object(var members) = state {
            members["signoffs"] = .array(draw.signoffs.map(\.pageJSON))
            members["lockSigned"] = .bool(draw.lockSignedOff)
            state = .object(members)
        }
        // Only when set: a round carried on after a restart (issue #40), until the next Start.
        if let resumed, case .object(var members) = state {
            members["resumed"] = .object(["round": .int(Int64(resumed))])
            state = .object(members)
        }
        // The settings' summary is spliced in as text, encoded once per configure.
        var text = state.canonicalString
        text.removeFirst()
        return "{\"config\":" + summaryText + "," + text
    }
}
