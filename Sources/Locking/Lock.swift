#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex: `lock.withLock { $0 += 1 }`.
///
/// We use this rather than `Synchronization.Mutex` because on Linux that Mutex locks with
/// raw futex calls, which ThreadSanitizer cannot see: every access it guards is reported
/// as a race, and the sanitizer run of the suite could not tell real races from those.
/// ThreadSanitizer intercepts pthread mutexes, so guarded accesses stay quiet and real
/// races still show.
public final class Lock<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only while `mutex` is held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
