import DrawRoomCore

/// A follower's pages' own check-in part (docs/CLUSTER.md, *Check-in*, *Pages*): a page with a
/// device cookie, or a host's, gets after the owner's public snapshot the same `state` with its
/// own `checkin` part, which only the owner's book can give. Pages are gathered for 20 ms and
/// asked for together, at most `CheckinQuery.maxPages` per forwarded read, so a new owner's `R`
/// with thousands of checked-in phones here costs a few reads, not one each.
extension ClusterNodeState {
    /// How long pages are gathered before their parts are asked for.
    static let ownCheckinDelay: Duration = .milliseconds(20)

    /// Page `id` gets its own part if the owner's state has a check-in part at all.
    mutating func queueOwnCheckin(_ id: UInt64, _ actions: inout [Action]) {
        guard members[id] != nil, !roomOpen, snapshotSummary.hasCheckin else { return }
        ownCheckinPending.append(id)
        if ownCheckinPending.count == 1 {
            actions.append(.schedule(.ownCheckin, at: now.nanoseconds &+ UInt64(Self.ownCheckinDelay.nanosecondCount)))
        }
    }

    /// The pages gathered (each once, those still here) asked for in reads of at most `maxPages`.
    mutating func ownCheckinDue(_ actions: inout [Action]) {
        let pending = ownCheckinPending
        ownCheckinPending = []
        guard !roomOpen, !stopped else { return }
        var seen = Set<UInt64>()
        let ids = pending.filter { members[$0] != nil && seen.insert($0).inserted }
        for start in stride(from: 0, to: ids.count, by: CheckinQuery.maxPages) {
            let pages = Array(ids[start..<min(ids.count, start + CheckinQuery.maxPages)])
            let asks = pages.map { CheckinQuery.PageAsk(device: members[$0]?.device, host: members[$0]?.isHost == true) }
            actions.append(.askOwnCheckin(pages, asks))
        }
    }
}
