// Temporary stand-in for the `wsint` branch's WebSocket session API (same names and
// signatures), so the draw room builds before that branch lands. Deleted by the merge.
import Posix

public enum OutboundStream: Sendable {
    case latestValue
    case reliable
}

public struct WebSocketSessionHandle: Sendable, Hashable {
    public let id: UInt64
    public func send(text: String) {}
}

public final class BroadcastGroup: Sendable {
    public init() {}
    public var count: Int { 0 }
    public func broadcast(text: String, stream: OutboundStream) {}
}
