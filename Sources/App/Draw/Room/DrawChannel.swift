import DrawRoomCore
import DrawEngine
import Posix
import Server
import WebSocketCore

/// What the routes need from a draw: a single-box `DrawRoom`, or in cluster mode the
/// `ClusterDrawNode` that serves the draw's pages on this instance (and owns it, or forwards).
protocol DrawChannel: AnyObject, Sendable {
    var code: String { get }
    /// This instance's pages of the draw.
    var group: BroadcastGroup { get }
    func isHostKey(_ key: String) -> Bool
    /// `device`: the hash of the page's check-in cookie, if any (so the room knows which entry is its own).
    func join(_ handle: WebSocketSessionHandle, remote: String, device: String?)
    func leave(_ id: UInt64)
    func received(_ text: String, from id: UInt64)
    func perform(_ command: HostCommand, seq: Int64?, client: String?, awaitReveal: Bool,
                 completion: @escaping @Sendable (Result<CommandReply, CommandFailure>) -> Void)
    /// The public `state` as JSON text; nil when this instance cannot know it right now
    /// (cluster mode: no owner has published it yet and Redis cannot be read).
    func currentState(_ completion: @escaping @Sendable (String?) -> Void)
    func export(_ completion: @escaping @Sendable (Result<[DrawRecord], any Error>) -> Void)
    /// The loop the channel's pages are served on.
    var loop: EventLoop { get }
    /// The full settings (`GET /api/draws/<code>/config`); nil when this instance cannot serve
    /// them (cluster mode: only the owner holds them).
    func settingsDocument(_ completion: @escaping @Sendable (SettingsDocument?) -> Void)
    /// The stored settings, names included (a private draw's roster, host key only: PrivateRosterAPI).
    func storedSettings(_ completion: @escaping @Sendable (DrawConfig?) -> Void)
    /// One page of the board (`GET …/rounds`, `GET …/rounds/<n>/winners`); nil when this instance
    /// cannot serve it (cluster mode: only the owner holds the board).
    func boardPage(_ request: BoardPageRequest, _ completion: @escaping @Sendable (BoardPageAnswer?) -> Void)
    /// This draw's winners for other draws' `excludeWinnersOf`; nil when this instance does not
    /// hold them (cluster mode).
    var pastWinners: PastWinners? { get }
}

extension DrawRoom: DrawChannel {
    func currentState(_ completion: @escaping @Sendable (String?) -> Void) {
        publicState { completion($0) }
    }

    var pastWinners: PastWinners? { winners }
}

/// Cluster mode's say over what an owner's room announces. Loop only.
protocol DrawAnnouncer: AnyObject {
    /// Whether the room may still announce: its owner lease holds.
    func mayAnnounce() -> Bool
    /// A broadcast the room is making to this instance's pages: forward it to the others.
    func announced(_ text: String, kind: DrawRoomState.BroadcastKind, stream: OutboundStream)
    /// A `tick` (numbered `seq`) the room is making to this instance's pages.
    func announcedTick(_ text: String, seq: Int64, stream: OutboundStream)
    /// One event's actions are performed (a fresh snapshot is due if anything reliable went out).
    func settled(_ room: DrawRoom)
}
