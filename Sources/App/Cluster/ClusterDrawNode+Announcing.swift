import DrawRoomCore
import RedisStore
import Crypto
import DrawEngine
import JSON
import Posix
import Server

/// What the owner's room announces: gated by the lease, forwarded on the draw's channel.
extension ClusterDrawNode: DrawAnnouncer {
    // MARK: Announcing (owner; DrawAnnouncer)

    func mayAnnounce() -> Bool {
        guard let lease, lease.isValid(margin: settings.safetyMargin) else {
            if lease != nil { loop.execute { [self] in stepDown("its lease ran out") } }
            return false
        }
        return true
    }

    func announced(_ text: String, kind: DrawRoomState.BroadcastKind, stream: OutboundStream) {
        guard let lease else { return }
        let wire: ClusterChannelMessage.Kind
        switch (kind, stream) {
        case (.viewers, _): wire = .viewers
        case (_, .latestValue): wire = .latest
        case (.cleared, _): wire = .cleared
        case (.checkinWinners, _): wire = .checkinWinners
        default: wire = .reliable
        }
        if stream == .reliable { reliableSinceSettle = true }
        if kind == .phase(.rolling), let room { keepRolling(room.currentDraw, lease: lease) }
        publish(.frame(wire, instance: runtime.instanceID, token: lease.token, body: text))
    }

    /// A tick goes out with the draw's highest tick seq, fenced in one script: a new owner's ticks
    /// continue above every seq announced, and a stale owner's tick reaches no other instance.
    func announcedTick(_ text: String, seq: Int64, stream: OutboundStream) {
        guard let lease else { return }
        if stream == .reliable { reliableSinceSettle = true }
        let message = ClusterChannelMessage.frame(stream == .latestValue ? .tick : .reliable, instance: runtime.instanceID,
                                                  token: lease.token, body: text)
        store.publishTick(seq: seq, payload: message.encoded, lease: lease) { [self] result in
            if case .success(false) = result, self.lease?.token == lease.token { stepDown("fenced: its tick was refused") }
        }
    }

    /// A round started: keep what Start froze beside the log, so that if this instance dies
    /// while it rolls, the next owner carries on the same round (same commitment, same frozen
    /// contributions and audience number: the same winners at Stop). Only the lease holder
    /// can write it; a stale one is ignored (it names a commitment already used).
    func keepRolling(_ draw: Draw, lease: OwnerLease) {
        guard draw.phase == .rolling, let commit = draw.commit else { return }
        let hint: JSONValue = .object([
            "commitment": .string(commit.commitment), "round": .int(Int64(commit.round)),
            "contributions": .array(draw.frozenContributions.map { .string($0.hex) }),
            "audience": draw.frozenAudience.map { .string($0) } ?? .null,
        ])
        let value = Array(hint.canonicalString.utf8)
        if let pending = pendingStartAnswer {
            // The Start's answer and the round's frozen inputs in one script: a host resending it
            // after a takeover gets the original answer exactly when the new owner carries it on.
            pendingStartAnswer = nil
            return rememberAnswer(pending, alsoSet: (keys.rolling, value))
        }
        store.setIfOwner(keys.rolling, value: value, lease: lease) { _ in }
    }

    func settled(_ room: DrawRoom) {
        publishWinnersIfChanged(room)
        if let pending = pendingStartAnswer, self.room === room {
            // A Start that broadcast no rolling phase (it was refused the announcement): keep it alone.
            pendingStartAnswer = nil
            rememberAnswer(pending, alsoSet: nil)
        }
        guard reliableSinceSettle, self.room === room else { return }
        reliableSinceSettle = false
        publishSnapshot(of: room, announcesOwner: false)
    }

    func publishSnapshot(of room: DrawRoom, announcesOwner: Bool) {
        guard let lease else { return }
        publishedSeq += 1
        let snapshot = ClusterSnapshot(token: lease.token, seq: publishedSeq, epoch: logEpoch, offset: logOffset,
                                       text: room.publicStateText)
        store.client.send([Array("SET".utf8), Array(keys.snapshot.utf8), Array(snapshot.stored(by: runtime.instanceID).utf8)]) { _ in }
        publish(.snapshot(snapshot, instance: runtime.instanceID, announcesOwner: announcesOwner))
    }

    func publish(_ message: ClusterChannelMessage) {
        store.client.send([Array("PUBLISH".utf8), Array(keys.channel.utf8), message.encoded]) { _ in }
    }
}
