import CMPFR
import Glibc

/// MPFR keeps caches per thread (constants such as π, and a pool of integer temporaries
/// that the transcendental functions reuse), which only `mpfr_free_cache2` releases. A
/// thread registers here before it first builds an MPFR number; when the thread ends, its
/// caches are freed (e.g. the event-loop threads of a server that stopped).
enum MPFRThreadCache {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { _ in mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE) }
        precondition(rc == 0, "pthread_key_create failed: \(rc)")
        return key
    }()

    /// Cheap after the first call on each thread (one thread-specific lookup).
    static func register() {
        if pthread_getspecific(key) == nil { pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1)) }
    }
}
