import Locking
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct LockTests {
    struct Refused: Error, Equatable {}

    @Test func returnsWhatTheBodyReturnsAndKeepsItsChanges() {
        let lock = Lock([Int]())
        let count = lock.withLock { values in
            values.append(3)
            return values.count
        }
        #expect(count == 1)
        #expect(lock.withLock { $0 } == [3])
    }

    @Test func aThrowingBodyReleasesTheLockAndRethrowsItsError() {
        let lock = Lock(0)
        #expect(throws: Refused()) {
            try lock.withLock { (value: inout Int) throws(Refused) in
                value = 1
                throw Refused()
            }
        }
        // Still lockable (a held mutex would deadlock here) and the change before the throw stands.
        #expect(lock.withLock { $0 } == 1)
    }

    @Test func incrementsFromManyThreadsAreNeverLost() {
        let lock = Lock(0)
        let threads = 8, increments = 20_000
        var handles: [pthread_t] = []
        final class Work: @unchecked Sendable {
            // @unchecked Sendable: immutable after init.
            let lock: Lock<Int>
            let increments: Int
            init(lock: Lock<Int>, increments: Int) { self.lock = lock; self.increments = increments }
        }
        for _ in 0..<threads {
            let work = Unmanaged.passRetained(Work(lock: lock, increments: increments)).toOpaque()
            var handle = pthread_t()
            let status = pthread_create(&handle, nil, { raw in
                let work = Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue()
                for _ in 0..<work.increments { work.lock.withLock { $0 += 1 } }
                return nil
            }, work)
            #expect(status == 0)
            handles.append(handle)
        }
        for handle in handles { pthread_join(handle, nil) }
        #expect(lock.withLock { $0 } == threads * increments)
    }
}
