import Glibc
import Posix
import Synchronization
import WebSocketClient

/// What the host connection has seen, readable from the main thread.
struct HostView: Sendable {
    var isOpen = false
    var isHost = false
    var phase: String?
    var firstTick: Int?
    var lastTick: Int?
    var firstTickAt: Double?
    var lastTickAt: Double?
    var ticks = 0
    /// `ticks` and `lastTickAt` when `stopping` arrived: the rolling part, before the slow-down.
    var rollingTicks: Int?
    var rollingLastTick: Int?
    var rollingLastTickAt: Double?
    var errors: [String] = []
    /// Commands acknowledged (`ack`), in order.
    var acks: [String] = []
    var closeReason: String?
    /// The permessage-deflate the host's handshake settled (what every viewer of the run gets),
    /// as the response parameters, or nil without it.
    var deflate: String?
    /// Messages that reached the host compressed.
    var compressedMessages = 0
}

/// The one host connection of a fan-out run: authenticates with the host key, then sends
/// `start`/`stop` when told to and watches the phase and the tick range.
final class HostShard: FleetShard {
    let key: String
    private(set) var view = HostView()

    init(loop: EventLoop, plan: PeerPlan, progress: FleetProgress, key: String) {
        self.key = key
        super.init(loop: loop, plan: plan, progress: progress, count: 1, firstGlobalIndex: 0)
    }

    override func didOpen(_ peer: WebSocketPeer) {
        view.isOpen = true
        view.deflate = peer.negotiatedDeflate.map { d in
            "server_no_context_takeover=\(d.serverNoContextTakeover) client_no_context_takeover=\(d.clientNoContextTakeover) windows=\(d.serverMaxWindowBits)/\(d.clientMaxWindowBits)"
        }
        // Its own client id: the bench's command seqs never collide with a page's (PROTOCOL.md).
        peer.send(text: #"{"type":"auth","client":"tombola-bench-\#(getpid())","key":"# + ReportJSON.quote(key) + "}")
    }

    override func didReceive(_ bytes: UnsafeRawBufferPointer, from peer: WebSocketPeer, at receivedAt: Double) {
        view.compressedMessages = peer.compressedMessages
        if let tick = TickFields.parse(bytes) {
            view.ticks += 1
            if view.firstTick == nil { view.firstTick = tick.seq; view.firstTickAt = tick.at }
            view.lastTick = max(view.lastTick ?? tick.seq, tick.seq)
            view.lastTickAt = tick.at
            return
        }
        guard let type = JSONFieldScanner.string("type", in: bytes) else { return }
        switch type {
        case "role":
            view.isHost = JSONFieldScanner.string("role", in: bytes) == "host"
        case "state", "phase":
            if let phase = JSONFieldScanner.string("phase", in: bytes) {
                if phase == "stopping" && view.phase == "rolling" {
                    view.rollingTicks = view.ticks
                    view.rollingLastTick = view.lastTick
                    view.rollingLastTickAt = view.lastTickAt
                }
                view.phase = phase
            }
        case "ack":
            view.acks.append(JSONFieldScanner.string("command", in: bytes) ?? "?")
        case "error":
            view.errors.append(JSONFieldScanner.string("code", in: bytes) ?? String(decoding: bytes, as: UTF8.self))
        default:
            break
        }
    }

    override func didClose(_ peer: WebSocketPeer, reason: PeerCloseReason) {
        view.isOpen = false
        view.closeReason = reason.summary
    }

    func send(_ text: String) {
        peers.first?.send(text: text)
    }
}
