import CLinux
import Glibc
import Locking
import Synchronization

/// A fixed set of loops, each on its own thread (one per core by default).
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let threads: Lock<[pthread_t]>
    private let nextIndex = Atomic<Int>(0)

    /// Starts `loopCount` loops (default: the number of online cores).
    public init(loopCount: Int = EventLoopGroup.coreCount, sendBatching: SendBatching = .automatic) throws(POSIXError) {
        let count = max(1, loopCount)
        var loops: [EventLoop] = []
        for index in 0..<count { loops.append(try EventLoop(index: index, sendBatching: sendBatching)) }
        self.loops = loops
        var threads: [pthread_t] = []
        for loop in loops {
            let box = Unmanaged.passRetained(loop).toOpaque()
            var thread = pthread_t()
            let rc = pthread_create(&thread, nil, { raw in
                let loop = Unmanaged<EventLoop>.fromOpaque(raw!).takeRetainedValue()
                loop.run()
                return nil
            }, box)
            precondition(rc == 0, "pthread_create failed: \(rc)")
            threads.append(thread)
        }
        self.threads = Lock(threads)
    }

    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// The next loop, round-robin.
    public func next() -> EventLoop {
        loops[nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Stops every loop (each closes what it owns) and waits for the threads to finish.
    /// Call from outside the group's loops.
    public func shutdown() {
        for loop in loops { loop.stop() }
        let threads = self.threads.withLock { threads in
            let taken = threads
            threads = []
            return taken
        }
        for thread in threads { pthread_join(thread, nil) }
    }
}
