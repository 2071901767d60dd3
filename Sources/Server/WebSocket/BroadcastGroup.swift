import Posix
import Synchronization
import WebSocketCore

/// The members of a room, partitioned per event loop: each loop's members live in storage
/// touched only on that loop, so joining, leaving and sending take no shared lock.
///
/// `broadcast` may be called from any thread: it encodes the message once (one
/// `BroadcastFrame`, compressed at most once per window size) and does one `loop.execute`
/// per loop that has members, which queues the same bytes on each of them. Broadcasts from
/// one thread arrive at every member in the order they were made.
public final class BroadcastGroup: Sendable {
    private let partitions = AtomicLazyReference<PartitionList>()
    private let memberCount = Atomic<Int>(0)

    public init() {}

    /// Members in all loops (exact once the joins and leaves in flight have run).
    public var count: Int { memberCount.load(ordering: .relaxed) }

    /// Adds `session`; call on its loop (e.g. in the endpoint's `accept`). Returns false if
    /// it is already a member or is closed. A member leaves by itself when it closes.
    @discardableResult
    public func join(_ session: WebSocketSession) -> Bool {
        precondition(session.loop.inEventLoop, "BroadcastGroup.join must run on the session's loop")
        guard session.isOpen else { return false }
        let partition = self.partition(for: session)
        guard partition.add(session) else { return false }
        session.memberships.append(self)
        memberCount.wrappingAdd(1, ordering: .relaxed)
        return true
    }

    /// Removes `session`; call on its loop. Returns false if it was not a member.
    @discardableResult
    public func leave(_ session: WebSocketSession) -> Bool {
        precondition(session.loop.inEventLoop, "BroadcastGroup.leave must run on the session's loop")
        guard removeClosed(session) else { return false }
        session.memberships.removeAll { $0 === self }
        return true
    }

    /// Whether `session` is a member; call on its loop.
    public func contains(_ session: WebSocketSession) -> Bool {
        precondition(session.loop.inEventLoop, "BroadcastGroup.contains must run on the session's loop")
        return partitions.load()?.partition(for: session.loop)?.contains(session) ?? false
    }

    /// Sends `text` to every member. From any thread.
    public func broadcast(text: String, stream: OutboundStream) {
        broadcast(BroadcastFrame(text: text), stream: stream)
    }

    /// Sends an already encoded frame to every member. From any thread.
    public func broadcast(_ frame: BroadcastFrame, stream: OutboundStream) {
        guard let list = partitions.load() else { return }
        for partition in list.partitions where partition.hasMembers {
            partition.loop.execute { partition.deliver(frame, stream: stream) }
        }
    }

    /// Runs `body` for every member, on each member's loop (for messages that differ per
    /// member). From any thread.
    public func forEachMember(_ body: @escaping @Sendable (WebSocketSession) -> Void) {
        guard let list = partitions.load() else { return }
        for partition in list.partitions where partition.hasMembers {
            partition.loop.execute { partition.forEach(body) }
        }
    }

    /// Drops a member without touching its membership list (the session is closing).
    @discardableResult
    func removeClosed(_ session: WebSocketSession) -> Bool {
        guard let partition = partitions.load()?.partition(for: session.loop), partition.remove(session) else { return false }
        memberCount.wrappingSubtract(1, ordering: .relaxed)
        return true
    }

    private func partition(for session: WebSocketSession) -> Partition {
        let list = partitions.storeIfNil(PartitionList(loops: session.allLoops.map(\.loop)))
        guard let partition = list.partition(for: session.loop) else {
            preconditionFailure("BroadcastGroup: a session from another server's loops")
        }
        return partition
    }
}

/// One partition per loop, fixed when the first member joins.
private final class PartitionList: Sendable {
    let partitions: [Partition]

    init(loops: [EventLoop]) {
        partitions = loops.map(Partition.init)
    }

    func partition(for loop: EventLoop) -> Partition? {
        if loop.index < partitions.count, partitions[loop.index].loop === loop { return partitions[loop.index] }
        return partitions.first { $0.loop === loop }
    }
}

/// A group's members on one loop.
///
/// `@unchecked Sendable`: `members` and `slots` are used only on `loop`'s thread;
/// `memberCount` is atomic so other threads can skip empty partitions.
private final class Partition: @unchecked Sendable {
    let loop: EventLoop
    private var members: [WebSocketSession] = []
    /// Session id → index in `members`, for O(1) removal.
    private var slots: [UInt64: Int] = [:]
    private let memberCount = Atomic<Int>(0)

    init(loop: EventLoop) {
        self.loop = loop
    }

    var hasMembers: Bool { memberCount.load(ordering: .relaxed) > 0 }

    func contains(_ session: WebSocketSession) -> Bool { slots[session.id] != nil }

    func add(_ session: WebSocketSession) -> Bool {
        guard slots[session.id] == nil else { return false }
        slots[session.id] = members.count
        members.append(session)
        memberCount.wrappingAdd(1, ordering: .relaxed)
        return true
    }

    func remove(_ session: WebSocketSession) -> Bool {
        guard let index = slots.removeValue(forKey: session.id) else { return false }
        let last = members.removeLast()
        if index < members.count {
            members[index] = last
            slots[last.id] = index
        }
        memberCount.wrappingSubtract(1, ordering: .relaxed)
        if members.isEmpty {
            members = []
            slots = [:]
        }
        return true
    }

    /// On the loop: the same bytes to every member. Closing members leave in the close
    /// phase, never during this pass.
    func deliver(_ frame: BroadcastFrame, stream: OutboundStream) {
        guard let first = members.first else { return }
        let cache = FrameVariantCache()
        var sent = 0
        for member in members where member.enqueue(frame, stream: stream, cache: cache) { sent += 1 }
        first.countSent(sent)
    }

    func forEach(_ body: (WebSocketSession) -> Void) {
        for member in members { body(member) }
    }
}
