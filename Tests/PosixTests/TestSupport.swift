import Glibc
import Posix
import Locking

/// A thread-safe log of values that tests wait on with a deadline.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Lock<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }

    /// Waits until `predicate` holds for the recorded values, or `timeout` passes.
    @discardableResult
    func wait(timeout: Duration = .seconds(5), until predicate: ([Value]) -> Bool) -> [Value] {
        let deadline = MonotonicClock.nanoseconds() + UInt64(timeout.components.seconds) * 1_000_000_000
        while true {
            let snapshot = all
            if predicate(snapshot) || MonotonicClock.nanoseconds() > deadline { return snapshot }
            usleep(1000)  // poll interval
        }
    }
}

/// Polls `condition` every millisecond until it holds or `timeout` passes; returns whether it held.
func waitUntil(timeout: Duration = .seconds(5), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        usleep(1000)  // poll interval
    }
    return try condition()
}

/// Bytes waiting unread in the kernel for socket `fd` (`FIONREAD`), e.g. a server-side
/// connection whose reading is paused (`TCPConnection.id` is its descriptor).
func unreadBytes(onDescriptor fd: Int32) -> Int {
    var count: Int32 = 0
    return ioctl(fd, UInt(FIONREAD), &count) == 0 ? Int(count) : 0
}

/// Returns once `loop` has run two tasks posted from here in turn: whatever it was already
/// due to handle (ready events, earlier tasks) has been handled.
func settle(_ loop: EventLoop) {
    for _ in 0..<2 {
        let ran = Recorder<Bool>()
        loop.execute { ran.append(true) }
        ran.wait { !$0.isEmpty }
    }
}

/// The result of `body` run on `loop`.
func onLoop<Value: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> Value) -> Value? {
    let result = Recorder<Value>()
    loop.execute { result.append(body()) }
    return result.wait { !$0.isEmpty }.first
}

/// Echoes every byte back; records lifecycle events.
final class EchoHandler: ConnectionHandler {
    let events: Recorder<String>
    init(events: Recorder<String>) { self.events = events }

    func received(_ bytes: UnsafeRawBufferPointer, on connection: TCPConnection) {
        connection.write(Array(bytes))
    }

    func receivedEOF(on connection: TCPConnection) {
        events.append("eof")
        connection.close()
    }

    func closed(_ connection: TCPConnection, error: POSIXError?) {
        events.append(error == nil ? "closed" : "closed-with-error")
    }
}

/// A group with one echo listener on 127.0.0.1, port 0.
struct EchoServer {
    let group: EventLoopGroup
    let listener: TCPListener
    let events = Recorder<String>()

    init(loops: Int = 1) throws {
        group = try EventLoopGroup(loopCount: loops)
        listener = try TCPListener(host: "127.0.0.1", port: 0)
        let events = self.events
        listener.start(on: group.next()) { connection in
            connection.handler = EchoHandler(events: events)
        }
    }

    func shutdown() { group.shutdown() }
}

func receiveExactly(_ count: Int, from socket: BlockingSocket) throws -> [UInt8] {
    var all: [UInt8] = []
    while all.count < count {
        let chunk = try socket.receive(maxCount: count - all.count)
        if chunk.isEmpty { break }
        all += chunk
    }
    return all
}
