import Posix

/// This instance's ownership of one draw: the fencing token it acquired and until when it
/// may act on it. Every write to the round log carries `token`; Redis refuses it once
/// another instance has acquired the lease.
public struct OwnerLease: Sendable, Equatable {
    public let draw: String
    public let owner: String
    public let token: Int64
    /// Monotonic nanoseconds (`MonotonicClock`) until which the lease surely holds: counted
    /// from when the acquiring or renewing command was *sent*, so it ends no later than
    /// Redis's expiry (up to clock-rate drift, which the owner covers by renewing early and
    /// stopping a margin before this).
    public var validUntil: UInt64

    public init(draw: String, owner: String, token: Int64, validUntil: UInt64) {
        self.draw = draw
        self.owner = owner
        self.token = token
        self.validUntil = validUntil
    }

    /// The lease key's value: `"<token>:<owner>"`.
    var value: String { "\(token):\(owner)" }

    /// Whether the lease still holds at `now` with `margin` to spare.
    public func isValid(at now: UInt64 = MonotonicClock.nanoseconds(), margin: Duration = .zero) -> Bool {
        now &+ UInt64(max(0, margin.wholeNanoseconds)) < validUntil
    }
}

/// The outcome of trying to take a draw's lease.
public enum LeaseAcquisition: Sendable, Equatable {
    case acquired(OwnerLease)
    /// Another holder's `"<token>:<owner>"`.
    case held(by: String)
}

extension Duration {
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    var milliseconds: Int64 { max(1, wholeNanoseconds / 1_000_000) }
}
