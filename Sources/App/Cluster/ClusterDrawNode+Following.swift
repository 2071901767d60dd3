import DrawRoomCore
import RedisStore
import Crypto
import DrawEngine
import JSON
import Posix
import Server

/// A follower: the owner's channel to this instance's pages, snapshots, and the log check
/// (docs/CLUSTER.md, *Fan-out*).
extension ClusterDrawNode {
    // MARK: Following

    func subscribeIfNeeded(resend: Bool = false) {
        guard !subscribed, room == nil else { return }
        subscribed = true
        snapshot = nil
        pagesMayLag = true
        snapshotReadPending = resend
        runtime.subscriber.subscribe(keys.channel) { [weak self] payload in self?.fanout(payload) }
        readSnapshotIfLive()
    }

    /// Reads the snapshot once the channel is live: what the owner publishes after the read is
    /// then delivered here. (Read before, a message published between the read and the
    /// SUBSCRIBE would reach neither the snapshot nor the pages.)
    func readSnapshotIfLive() {
        guard let resend = snapshotReadPending, subscribed, runtime.subscriber.liveChannels.contains(keys.channel) else { return }
        snapshotReadPending = nil
        refreshSnapshot(resend: resend)
    }

    func unsubscribe() {
        guard subscribed else { return }
        subscribed = false
        runtime.subscriber.unsubscribe(keys.channel)
    }

    /// Every subscription is live. After a new connection (a Redis outage: messages may have
    /// been lost) a follower reads the latest snapshot and resends it to every page.
    func subscriptionsReady(reconnected: Bool) {
        subscriptionsReady()
        guard reconnected, subscribed, room == nil else { return readSnapshotIfLive() }
        snapshotReadPending = nil
        pagesMayLag = true
        refreshSnapshot(resend: true)
    }

    /// A new owner's `R` goes out once its command channel is live, so that what the other
    /// instances send in answer (their pages' entropy, commands) reaches it.
    func subscriptionsReady() {
        guard announcePending, let room, runtime.subscriber.liveChannels.contains(keys.commands) else { return }
        announcePending = false
        publishSnapshot(of: room, announcesOwner: true)
    }

    func refreshSnapshot(resend: Bool) {
        store.client.send(["GET", keys.snapshot]) { [self] result in
            if case .success(let reply) = result, let text = reply.string, let read = Self.parseSnapshot(text), accept(read) {
                if resend { for id in members.keys { sendSnapshot(to: id) } }
            }
            let waiting = waitingForSnapshot
            waitingForSnapshot = []
            for id in waiting { sendSnapshot(to: id) }
        }
    }

    func sendSnapshot(to id: UInt64) {
        guard let member = members[id], room == nil else { return }
        guard let snapshot else {
            if !waitingForSnapshot.contains(id) { waitingForSnapshot.append(id) }
            return
        }
        member.handle.send(text: snapshot.text)
        if let lastTick { member.handle.send(text: lastTick) }
        if let lastViewers { member.handle.send(text: lastViewers) }
        if member.isHost { member.handle.send(text: Self.roleHost) }
        if member.device != nil || member.isHost { sendOwnCheckin(to: id) }  // ClusterDrawNode+Checkin
    }

    /// One message from the owner's channel, in publication order.
    func fanout(_ payload: [UInt8]) {
        guard let message = ClusterChannelMessage.decode(payload) else { return }
        let (instance, token): (String, Int64)
        switch message {
        case .frame(_, let from, let by, _): (instance, token) = (from, by)
        case .snapshot(let snapshot, let from, _): (instance, token) = (from, snapshot.token)
        }
        guard instance != runtime.instanceID else { return }
        // A publication of an older owner (paused past its lease, then resumed) is dropped.
        guard token >= highestToken else { return }
        if token > highestToken { ownerChanged(to: token) }
        if let lease, token > lease.token { stepDown("a newer owner (token \(token)) publishes") }
        guard room == nil else { return }
        switch message {
        case .frame(.tick, _, _, let body):
            lastTick = body
            group.broadcast(text: body, stream: .latestValue)
        case .frame(.viewers, _, _, let body):
            lastViewers = body
            group.broadcast(text: body, stream: .latestValue)
        case .frame(.latest, _, _, let body):
            group.broadcast(text: body, stream: .latestValue)
        case .frame(.reliable, _, _, let body):
            group.broadcast(text: body, stream: .reliable)
        case .frame(.cleared, _, _, let body):
            lastTick = nil
            group.broadcast(text: body, stream: .reliable)
        case .frame(.checkinWinners, _, _, let body):
            group.broadcast(text: body, stream: .reliable)
            relayWinnerPresence()  // ClusterDrawNode+Checkin
        case .snapshot(let read, _, let announcesOwner):
            // The first snapshot the live channel brings: pages that got an older one (read while
            // a message could still be missed) get this one. One no newer than theirs covers the
            // gap already: from it on, the channel has brought everything.
            let lagging = pagesMayLag
            pagesMayLag = false
            guard accept(read) else { return }
            // A new owner: every page gets its state (what it showed may have moved on), and the
            // owner this instance's pages' entropy again: `R` goes out only once the owner's command
            // channel is live, while a tick with its token (which also told this instance of the new
            // owner) may come before it, when what was sent then could not reach it.
            if announcesOwner || lagging {
                for id in members.keys { sendSnapshot(to: id) }
            }
            if announcesOwner {
                resendEntropy()
                resendDevices()
            }
        }
    }

    /// A new owner publishes: commands forwarded to an earlier one will not be answered (it
    /// died or was fenced), so they fail now rather than at their timeout. Their outcome is
    /// in the log: the host resyncs and decides, as after any `cluster_unavailable`.
    func ownerChanged(to token: Int64) {
        highestToken = token
        resendEntropy()
        resendDevices()
        for (id, entry) in forwarded where entry.delivered && entry.token < token && entry.token > 0 {
            forwarded[id] = nil
            entry.timer.cancel()
            entry.completion(.failure(CommandFailure(code: "cluster_unavailable")))
        }
    }

    /// The owner learns this instance's pages' entropy afresh (it keys them by instance and
    /// page, so a second copy changes nothing).
    func resendEntropy() {
        for (id, member) in members { if let entropy = member.entropy { forwardEntropy(entropy, of: id) } }
    }

    /// Takes a snapshot newer than the one held; checks the log up to its offset.
    @discardableResult
    func accept(_ read: ClusterSnapshot) -> Bool {
        if let snapshot, (read.token, read.seq) <= (snapshot.token, snapshot.seq) { return false }
        if read.token < highestToken { return false }
        if read.token > highestToken { ownerChanged(to: read.token) }
        snapshot = read
        lastTick = nil
        if !read.offset.isEmpty, read.offset != cursor.offset { checkLog() }
        return true
    }

    /// Follows the round log with a `ChainCursor`: a gap or a new epoch (Redis lost data) is
    /// reported as an alarm, never papered over.
    func checkLog() {
        guard !catchingUp else { return }
        catchingUp = true
        store.catchUp(draw: code, from: cursor) { [self] result in
            catchingUp = false
            switch result {
            case .success(let (advanced, _)):
                cursor = advanced
            case .failure(.broken(let broken)):
                DrawLog.error("cluster ALARM: the round log of draw \(code) changed under this instance: \(broken)", code: code)
                cursor = ChainCursor()
            case .failure(.store):
                break
            }
        }
    }
}
