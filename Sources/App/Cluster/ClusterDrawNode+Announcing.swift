import DrawRoomCore
import ClusterCore
import RedisStore
import Crypto
import DrawEngine
import JSON
import Posix
import Server
import WebSocketCore

/// What the owner's room announces: gated by the lease and forwarded on the draw's channel,
/// as `ClusterNodeState` decides.
extension ClusterDrawNode: DrawAnnouncer {
    // MARK: Announcing (owner; DrawAnnouncer)

    func mayAnnounce() -> Bool {
        guard state.mayAnnounce(at: MonotonicClock.nanoseconds()) else {
            if let lease = state.lease { loop.execute { [self] in feed(.leaseLapsed(token: lease.token)) } }
            return false
        }
        return true
    }

    func announced(_ text: String, kind: DrawRoomState.BroadcastKind, stream: OutboundStream) {
        feed(.announced(text, kind: kind, stream: stream))
    }

    func announcedTick(_ text: String, seq: Int64, stream: OutboundStream) {
        feed(.announcedTick(text, seq: seq, stream: stream))
    }

    /// A round started: keep what Start froze beside the log, so that if this instance dies
    /// while it rolls, the next owner carries on the same round (same commitment, same frozen
    /// contributions and audience number: the same winners at Stop). Only the lease holder
    /// can write it; a stale one is ignored (it names a commitment already used).
    func keepRolling(_ draw: Draw, lease: OwnerLease) {
        guard let hint = ClusterRollingHint(rolling: draw) else { return }
        let value = hint.encoded
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
        guard self.room === room else { return }
        feed(.settled)
    }
}
