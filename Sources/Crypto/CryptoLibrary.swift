import CCrypto

/// libcrypto's process-wide set-up.
public enum CryptoLibrary {
    /// Initialises libcrypto without its exit handler. By default the first use registers
    /// `OPENSSL_cleanup` with `atexit`, which frees libcrypto's global and thread-local state while
    /// other threads may still be ending (the storage thread, a detached fetch): a thread's exit
    /// destructor then frees the same state again ("double free or corruption", SIGABRT, seen once
    /// when a full-disk server stopped; openssl/openssl#6214). The memory goes back with the process
    /// anyway. Call before anything else uses libcrypto (libcurl included): the first call decides.
    public static func initializeWithoutExitHandler() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
