import Glibc
import Posix
import Testing

/// The flush phase with and without the io_uring send ring: what every socket receives
/// must not depend on how it was sent.
@Suite struct SendBatchingTests {
    static let modes: [SendBatching] = [.automatic, .off]

    @Test(arguments: modes)
    func manySocketsReceiveEveryWriteIntactAndInOrder(batching: SendBatching) throws {
        let server = try BulkServer(batching: batching)
        defer { server.shutdown() }
        // More sockets than the ring holds (256), so one flush submits several batches.
        let clients = try server.connect(300)
        // Shared frames of several sizes (copied once per batch), then a distinct array per
        // socket (one copy each: 300 × 1,500 bytes overflow the 256 KiB arena mid-batch).
        let shared = [40, 3_000, 70_000].map { size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ size) } }
        for frame in shared {
            server.loop.execute { server.registry.broadcast(frame) }
        }
        server.loop.execute { server.registry.writeDistinct(size: 1_500) }
        for (index, client) in clients.enumerated() {
            let expected = shared.flatMap { $0 } + ConnectionRegistry.distinct(index: index, size: 1_500)
            #expect(try receiveExactly(expected.count, from: client) == expected)
        }
        #expect(server.loop.usesSendRing == (batching == .automatic && SendRingProbe.kernelOffersIOUring))
    }

    @Test(arguments: modes)
    func aFullSocketBufferWaitsForTheReaderAndLosesNothing(batching: SendBatching) throws {
        let server = try BulkServer(batching: batching)
        defer { server.shutdown() }
        let client = try server.connect(1)[0]
        // One 32 KiB chunk per loop iteration, so each goes out alone (through the ring when
        // it is on) until the unread socket fills and the rest waits for EPOLLOUT.
        let chunks = 256
        let (loop, registry) = (server.loop, server.registry)
        let written = Recorder<Bool>()
        @Sendable func writeChunk(_ index: Int) {
            guard index < chunks else { return written.append(true) }
            registry.broadcast(Self.chunk(index))
            loop.execute { writeChunk(index + 1) }
        }
        loop.execute { writeChunk(0) }
        // Every chunk is written before we read a byte, and the rest waits for EPOLLOUT.
        #expect(!written.wait(timeout: .seconds(30)) { !$0.isEmpty }.isEmpty)
        #expect(onLoop(loop) { registry.connectionsWithQueuedOutput } == 1)
        // Compared a chunk at a time: other suites measure this process's memory meanwhile.
        var intact = 0
        for index in 0..<chunks where try receiveExactly(32_768, from: client) == Self.chunk(index) { intact += 1 }
        #expect(intact == chunks)
    }

    static func chunk(_ index: Int) -> [UInt8] {
        (0..<32_768).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index &* 13) }
    }

    @Test(arguments: modes)
    func aSendToAResetPeerClosesThatConnectionOnly(batching: SendBatching) throws {
        let server = try BulkServer(batching: batching)
        defer { server.shutdown() }
        let healthy = try server.connect(1)[0]
        let doomed = try server.connect(1)[0]
        doomed.reset()  // on loopback the RST reaches the server's socket within this call
        // The first send to a reset socket fails (or the reset is noticed as input first);
        // either way that connection closes and the other still gets every byte.
        let frames = (0..<3).map { round in Array(repeating: UInt8(ascii: "a") + UInt8(round), count: 100) }
        for frame in frames {
            server.loop.execute { server.registry.broadcast(frame) }
        }
        #expect(server.events.wait { $0.contains("closed") }.filter { $0 == "closed" }.count == 1)
        let expected = frames.flatMap { $0 }
        #expect(try receiveExactly(expected.count, from: healthy) == expected)
    }

    @Test(arguments: modes)
    func inputArrivingDuringALongFlushIsAnsweredBeforeTheFlushEnds(batching: SendBatching) throws {
        let server = try BulkServer(batching: batching)
        defer { server.shutdown() }
        let (loop, registry) = (server.loop, server.registry)
        let count = 300
        let viewers = try server.connect(count)

        // The interactive socket: reading paused, so its input waits in the kernel until
        // the broadcast's task resumes it; the next look at input is mid-flush.
        let interactive = try TCPListener(host: "127.0.0.1", port: 0)
        let stillQueued = Recorder<Int>()
        let typist = ConnectionRegistry()
        interactive.start(on: loop) { connection in
            connection.handler = ProbeHandler { connection in
                stillQueued.append(registry.connectionsWithQueuedOutput)
                connection.write(Array("answer".utf8))
            }
            connection.pauseReading()
            typist.add(connection)
        }
        let client = try BlockingSocket(host: "127.0.0.1", port: interactive.port)
        #expect(typist.wait(count: 1))
        try client.send("key")
        // The key waits in the kernel until the broadcast's task resumes reading.
        let typistDescriptor = typist.descriptor(at: 0)
        #expect(waitUntil { unreadBytes(onDescriptor: typistDescriptor) == 3 })
        let frame = Array(repeating: UInt8(ascii: "t"), count: 40)
        loop.execute {
            registry.broadcast(frame)
            typist.resumeAll()
        }
        #expect(try receiveExactly(6, from: client) == Array("answer".utf8))
        let queued = stillQueued.wait { !$0.isEmpty }
        // Answered after the first slice of sends, while the rest of the broadcast waited.
        #expect(queued.first.map { $0 > 0 && $0 < count } == true)
        for viewer in viewers {
            #expect(try receiveExactly(frame.count, from: viewer) == frame)
        }
    }
}

/// One loop with the given send batching, a listener whose connections record into
/// `events` and join `registry`.
struct BulkServer {
    let group: EventLoopGroup
    let listener: TCPListener
    let registry = ConnectionRegistry()
    let events = Recorder<String>()
    var loop: EventLoop { group.loops[0] }

    init(batching: SendBatching) throws {
        group = try EventLoopGroup(loopCount: 1, sendBatching: batching)
        listener = try TCPListener(host: "127.0.0.1", port: 0)
        let (registry, events) = (registry, events)
        listener.start(on: group.loops[0]) { connection in
            connection.handler = BulkHandler(events: events)
            registry.add(connection)
        }
    }

    /// `count` more clients, returned once the server has accepted all of them.
    func connect(_ count: Int) throws -> [BlockingSocket] {
        let before = registry.accepted
        let clients = try (0..<count).map { _ in try BlockingSocket(host: "127.0.0.1", port: listener.port) }
        #expect(registry.wait(count: before + count))
        return clients
    }

    func shutdown() { group.shutdown() }
}

/// Calls `onReceive` with the connection for every read.
final class ProbeHandler: ConnectionHandler {
    let onReceive: (TCPConnection) -> Void
    init(onReceive: @escaping (TCPConnection) -> Void) { self.onReceive = onReceive }
    func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) { onReceive(connection) }
    func closed(_ connection: TCPConnection, error: POSIXError?) {}
}

/// Whether this kernel lets a process set up an io_uring (the probe a loop makes too).
enum SendRingProbe {
    static let kernelOffersIOUring: Bool = {
        guard let group = try? EventLoopGroup(loopCount: 1) else { return false }
        defer { group.shutdown() }
        let done = Recorder<Bool>()
        group.loops[0].execute { done.append(group.loops[0].usesSendRing) }
        return done.wait { !$0.isEmpty }.first ?? false
    }()
}
