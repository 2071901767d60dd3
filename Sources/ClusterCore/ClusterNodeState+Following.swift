import DrawRoomCore
import RedisStore
import DrawEngine
import JSON

/// Pages here and a follower's view of the owner: the draw's channel to this instance's pages,
/// snapshots, and the log check (docs/CLUSTER.md, *Fan-out*).
extension ClusterNodeState {
    // MARK: Pages

    mutating func joined(_ id: UInt64, remote: String, device: String?, _ actions: inout [Action]) {
        var member = DrawRoomState.Member(remote: remote)
        member.device = device
        members[id] = member
        if roomOpen {
            actions.append(.toRoom(.join(id, remote: remote, device: device)))
        } else {
            subscribeIfNeeded(&actions)
            sendSnapshot(to: id, &actions)
            if let device { forwardDevice(device, of: id, &actions) }
        }
    }

    mutating func left(_ id: UInt64, _ actions: inout [Action]) {
        if !roomOpen, members[id]?.entropy != nil { forwardEntropy(nil, of: id, &actions) }
        if !roomOpen, members[id]?.device != nil { forwardDevice(nil, of: id, &actions) }
        members[id] = nil
        if roomOpen { actions.append(.toRoom(.leave(id))) }
        if members.isEmpty && !roomOpen { unsubscribe(&actions) }
    }

    mutating func received(_ text: String, from id: UInt64, _ actions: inout [Action]) {
        guard let member = members[id] else { return }
        let message: ClientMessage
        do {
            message = try DrawMessageParser.parse(text)
        } catch {
            actions.append(.send(DrawWire.errorText(error.code, seq: nil), to: id))
            return
        }
        switch message {
        case .hello(let entropy, let client):
            if let client { members[id]?.client = client }
            if let entropy { members[id]?.entropy = entropy }
            if roomOpen {
                actions.append(.toRoom(.received(text, from: id)))
            } else if let entropy {
                forwardEntropy(entropy, of: id, &actions)
            }
        case .sync:
            if roomOpen { actions.append(.toRoom(.received(text, from: id))) } else { sendSnapshot(to: id, &actions) }
        case .witness:
            // Relayed to the owner's host pages only (docs/CLUSTER.md).
            if roomOpen { actions.append(.toRoom(.received(text, from: id))) }
        case .auth(let key, let client):
            if let client { members[id]?.client = client }
            // The room's check (`HostKeyHash.verdict`: rate limit first, then the digest).
            actions.append(.checkKey(key, remote: member.remote, member: id))
        case .command(let command, let seq):
            guard member.isHost else {
                actions.append(.send(DrawWire.errorText("not_host", seq: nil), to: id))
                return
            }
            actions.append(.pageCommand(command, seq: seq, client: member.client, from: id))
        }
    }

    mutating func keyChecked(_ id: UInt64, _ verdict: DrawRoomState.KeyVerdict, _ actions: inout [Action]) {
        guard members[id] != nil else { return }
        if case .accepted = verdict { members[id]?.isHost = true }
        if roomOpen { return actions.append(.toRoom(.keyChecked(id, verdict))) }
        switch verdict {
        case .accepted:
            actions.append(.send(Self.roleHost, to: id))
            queueOwnCheckin(id, &actions)  // a host's `checkin.names`
        case .refused:
            actions.append(.countAuthFailure)
            actions.append(.send(DrawWire.errorText("bad_key", seq: nil), to: id))
        case .rateLimited:
            actions.append(.send(DrawWire.errorText("rate_limited", seq: nil), to: id))
        }
    }

    /// A page's entropy (nil: it left) for the owner's next round, as it counts a page of its own.
    mutating func forwardEntropy(_ entropy: Contribution?, of id: UInt64, _ actions: inout [Action]) {
        actions.append(.publishCommand(.entropy(from: settings.instanceID, page: Int64(id), entropy), request: nil))
    }

    /// Tells the owner that page `id` here belongs to `device` (nil: it left), so its room counts
    /// that phone as connected (the host's list and the winner's presence).
    mutating func forwardDevice(_ device: String?, of id: UInt64, _ actions: inout [Action]) {
        actions.append(.publishCommand(.device(from: settings.instanceID, page: Int64(id), device: device), request: nil))
    }

    /// The owner learns this instance's pages' entropy and devices afresh (it keys them by
    /// instance and page, so a second copy changes nothing).
    mutating func resendEntropyAndDevices(_ actions: inout [Action]) {
        for id in members.keys.sorted() { if let entropy = members[id]?.entropy { forwardEntropy(entropy, of: id, &actions) } }
        for id in members.keys.sorted() { if let device = members[id]?.device { forwardDevice(device, of: id, &actions) } }
    }

    // MARK: Following

    mutating func subscribeIfNeeded(resend: Bool = false, _ actions: inout [Action]) {
        guard !subscribed, !roomOpen else { return }
        subscribed = true
        fanoutLive = false
        snapshot = nil
        pagesMayLag = true
        snapshotReadPending = resend
        actions.append(.subscribe(.fanout))
    }

    mutating func unsubscribe(_ actions: inout [Action]) {
        guard subscribed else { return }
        subscribed = false
        fanoutLive = false
        actions.append(.unsubscribe(.fanout))
    }

    /// Every subscription is live. After a new connection (a Redis outage: messages may have
    /// been lost) a follower reads the latest snapshot and resends it to every page.
    mutating func subscriptionsReady(reconnected: Bool, _ actions: inout [Action]) {
        announceOwnerIfLive(&actions)
        guard reconnected, subscribed, !roomOpen else { return readSnapshotIfLive(&actions) }
        snapshotReadPending = nil
        pagesMayLag = true
        readSnapshot(resend: true, &actions)
    }

    /// Reads the snapshot once the channel is live: what the owner publishes after the read is
    /// then delivered here. (Read before, a message published between the read and the
    /// SUBSCRIBE would reach neither the snapshot nor the pages.)
    mutating func readSnapshotIfLive(_ actions: inout [Action]) {
        guard let resend = snapshotReadPending, subscribed, fanoutLive else { return }
        snapshotReadPending = nil
        readSnapshot(resend: resend, &actions)
    }

    mutating func readSnapshot(resend: Bool, _ actions: inout [Action]) {
        snapshotReads += 1
        actions.append(.readSnapshot(resend: resend))
    }

    /// Pages wait for a snapshot that a read did not bring (Redis failed over, or the read
    /// failed): read again, one read at a time, on each tick. Without this a page that joined
    /// then waited until the owner next published, which an idle draw may never do.
    mutating func readSnapshotAgainIfWaiting(_ actions: inout [Action]) {
        guard !roomOpen, subscribed, fanoutLive, snapshot == nil, !waitingForSnapshot.isEmpty,
              snapshotReadPending == nil, snapshotReads == 0, redisUp else { return }
        readSnapshot(resend: false, &actions)
    }

    mutating func sendSnapshot(to id: UInt64, _ actions: inout [Action]) {
        guard let member = members[id], !roomOpen else { return }
        guard let snapshot else {
            if !waitingForSnapshot.contains(id) { waitingForSnapshot.append(id) }
            return
        }
        actions.append(.send(snapshot.text, to: id))
        if let lastTick { actions.append(.send(lastTick, to: id)) }
        if let lastViewers { actions.append(.send(lastViewers, to: id)) }
        if member.isHost { actions.append(.send(Self.roleHost, to: id)) }
        if member.device != nil || member.isHost { queueOwnCheckin(id, &actions) }
    }

    /// One message from the owner's channel, in publication order.
    mutating func fanout(_ message: ClusterChannelMessage, _ actions: inout [Action]) {
        let (instance, token): (String, Int64)
        switch message {
        case .frame(_, let from, let by, _): (instance, token) = (from, by)
        case .snapshot(let snapshot, let from, _): (instance, token) = (from, snapshot.token)
        }
        guard instance != settings.instanceID else { return }
        // A publication of an older owner (paused past its lease, then resumed) is dropped.
        guard token >= highestToken else { return }
        if token > highestToken { ownerChanged(to: token, &actions) }
        if let lease, token > lease.token { stepDown("a newer owner (token \(token)) publishes", &actions) }
        guard !roomOpen else { return }
        switch message {
        case .frame(.tick, _, _, let body):
            lastTick = body
            actions.append(.deliver(body, stream: .latestValue))
        case .frame(.viewers, _, _, let body):
            lastViewers = body
            actions.append(.deliver(body, stream: .latestValue))
        case .frame(.latest, _, _, let body):
            actions.append(.deliver(body, stream: .latestValue))
        case .frame(.reliable, _, _, let body):
            actions.append(.deliver(body, stream: .reliable))
        case .frame(.cleared, _, _, let body):
            lastTick = nil
            actions.append(.deliver(body, stream: .reliable))
        case .frame(.checkinWinners, _, _, let body):
            actions.append(.deliver(body, stream: .reliable))
            actions.append(.relayWinnerPresence)
        case .snapshot(let read, _, let announcesOwner):
            // The first snapshot the live channel brings: pages that got an older one (read while
            // a message could still be missed) get this one. One no newer than theirs covers the
            // gap already: from it on, the channel has brought everything.
            let lagging = pagesMayLag
            pagesMayLag = false
            guard accept(read, &actions) else { return }
            // A new owner: every page gets its state (what it showed may have moved on), and the
            // owner this instance's pages' entropy again: `R` goes out only once the owner's command
            // channel is live, while a tick with its token (which also told this instance of the new
            // owner) may come before it, when what was sent then could not reach it.
            if announcesOwner || lagging {
                for id in members.keys.sorted() { sendSnapshot(to: id, &actions) }
            }
            if announcesOwner { resendEntropyAndDevices(&actions) }
        }
    }

    /// A new owner publishes: requests forwarded to an earlier one will not be answered (it
    /// died or was fenced), so they fail now rather than at their timeout. Their outcome is
    /// in the log: the host resyncs and decides, as after any `cluster_unavailable`.
    mutating func ownerChanged(to token: Int64, _ actions: inout [Action]) {
        highestToken = token
        resendEntropyAndDevices(&actions)
        for id in forwarded.keys.sorted() {
            guard let entry = forwarded[id], entry.delivered, entry.token < token, entry.token > 0 else { continue }
            fail(id, &actions)
        }
    }

    /// Takes a snapshot newer than the one held; checks the log up to its offset.
    @discardableResult
    mutating func accept(_ read: ClusterSnapshot, _ actions: inout [Action]) -> Bool {
        if let snapshot, (read.token, read.seq) <= (snapshot.token, snapshot.seq) { return false }
        if read.token < highestToken { return false }
        if read.token > highestToken { ownerChanged(to: read.token, &actions) }
        snapshot = read
        lastTick = nil
        if !read.offset.isEmpty, read.offset != cursor.offset, !catchingUp {
            // Follows the round log with a `ChainCursor`: a gap or a new epoch (Redis lost data)
            // is reported as an alarm, never papered over.
            catchingUp = true
            actions.append(.checkLog(cursor))
        }
        return true
    }
}
