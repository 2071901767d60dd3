/// How a frame sent to many clients behaves when a client falls behind.
public enum OutboundStream: Sendable, Hashable {
    /// Each frame supersedes the previous one of its stream (rolling numbers): while the
    /// client has more than the soft limit queued, frames are skipped, and the newest skipped
    /// one goes out once its queue drains.
    case latestValue
    /// Never dropped (results, phases): a client with more than the hard limit queued is
    /// closed with 1013 and resyncs from a snapshot when it reconnects.
    case reliable
    /// Another latest-value stream, skipped and caught up independently of `.latestValue`
    /// (e.g. viewer counts beside ticks, so a burst of ticks never hides the newest count).
    case latestValueSlot(UInt8)
}
