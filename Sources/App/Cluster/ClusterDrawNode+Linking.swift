import ClusterCore
import DrawRoomCore
import RedisStore
import Crypto
import DrawEngine
import JSON
import Server

/// `excludeWinnersOf` across instances (docs/CLUSTER.md, *Linked draws*): each draw's owner
/// publishes the draw's winners for exclusion in `{d:CODE}:winners` whenever they change (after
/// a reveal, as single-box republishes them); an owner about to Start or Configure a draw that
/// links others reads theirs from Redis first, so its room resolves them as a single box does.
extension ClusterDrawNode {
    /// The links the owner's room resolves `excludeWinnersOf` through: the other draws' nodes
    /// here, and their host keys for a new link (a rate-limit bucket per linking draw, as single-box).
    func pastDrawLinks() -> PastDrawLinks {
        let runtime = self.runtime
        let code = self.code
        return PastDrawLinks(
            winners: { other in runtime.node(other)?.pastWinners },
            controls: { other, key in
                guard let node = runtime.node(other) else { return false }
                // A follower checked the key of a forwarded configure (below): its proof, not the key, crossed Redis.
                if key == Self.linkProof(key: runtime.settings.key, draw: code, linked: node.code) { return true }
                let bucket = "link:" + code
                guard runtime.limiter.allows(bucket) else { return false }
                guard node.isHostKey(key) else {
                    runtime.limiter.recordFailure(bucket)
                    runtime.metrics.authFailures.increment()
                    return false
                }
                return true
            })
    }

    /// Owner: publishes the room's winners for other draws when they changed. Loop only.
    func publishWinnersIfChanged(_ room: DrawRoom) {
        // A cluster room is built with its state; `winners` is nil only before a room is read.
        guard let lease = state.lease, self.room === room, let winners = room.winners else { return }
        if let published = publishedWinners, published.records == winners.records, published.head == winners.head { return }
        publishedWinners = (winners.records, winners.head)
        setPastWinners(winners)
        store.setIfOwner(keys.winners, value: Array(ClusterStoredRows.encode(winners).utf8), lease: lease) { _ in }
    }

    /// The draws `command` resolves winners of (Start: the draw's links; Configure: the new ones).
    func linkedDraws(of command: HostCommand, in room: DrawRoom) -> [String] {
        switch command {
        case .start, .replacePool: return room.currentDraw.config.excludeWinnersOf.map { EntrantList.trim($0.code) }
        case .configure(let config): return config.excludeWinnersOf.map { EntrantList.trim($0.code) }
        default: return []
        }
    }

    /// Reads the winners of the linked draws this instance does not own from Redis into their
    /// nodes; `done(false)` when one cannot be read (Redis, or its owner has not published them
    /// yet): the command then fails rather than run without an exclusion. Loop only.
    func refreshWinners(of codes: [String], _ done: @escaping (Bool) -> Void) {
        let nodes = codes.compactMap { runtime.node($0) }.filter { $0 !== self && !$0.isOwner }
        guard !nodes.isEmpty else { return done(true) }
        var left = nodes.count
        var complete = true
        for node in nodes {
            store.client.send(["GET", node.keys.winners]) { result in
                if case .success(let reply) = result, let text = reply.string, let winners = ClusterStoredRows.winners(text, code: node.code) {
                    node.setPastWinners(winners)
                } else {
                    complete = false
                }
                left -= 1
                if left == 0 { done(complete) }
            }
        }
    }

    /// A host command as forwarded to the owner. A configure's new links carry, instead of the
    /// other draws' host keys, a proof that this instance checked them (an HMAC under the
    /// cluster key, which hosts do not hold), so no host key of another draw crosses Redis. A
    /// wrong key is dropped here (the owner then answers `past_draw_key` for a new link, as
    /// single-box), counted and rate-limited as single-box counts it.
    func forwardable(_ command: HostCommand) -> HostCommand {
        guard case .configure(var config) = command, !config.excludeWinnersOf.isEmpty else { return command }
        config.excludeWinnersOf = config.excludeWinnersOf.map { link -> PastDraw in
            let linked = EntrantList.trim(link.code)
            guard let key = link.key, let node = runtime.node(linked), node !== self else { return PastDraw(code: link.code) }
            let bucket = "link:" + code
            guard runtime.limiter.allows(bucket) else { return PastDraw(code: link.code) }
            guard node.isHostKey(key) else {
                runtime.limiter.recordFailure(bucket)
                runtime.metrics.authFailures.increment()
                return PastDraw(code: link.code)
            }
            return PastDraw(code: link.code, key: Self.linkProof(key: settings.key, draw: code, linked: node.code))
        }
        return .configure(config)
    }

    /// Proof that an instance of this cluster checked the host key of draw `linked` for a
    /// configure of draw `draw`.
    static func linkProof(key: [UInt8], draw: String, linked: String) -> String {
        "cluster-link-proof:" + lowercaseHex(HMACSHA256.authenticationCode(key: key, message: Array("tombola link\n\(draw)\n\(linked)".utf8)))
    }
}
