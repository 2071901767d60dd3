import Foundation

/// Owns the `Database` and the one thread that uses it. Work runs in submission order;
/// results go back through the caller's completion, called on the storage thread (post
/// them to your event loop from there). Loop threads must only use `async`.
public final class StorageQueue: Sendable {
    private let worker: Worker

    /// The database file's name inside a data directory.
    public static let fileName = "tombola.sqlite"

    /// Creates `directory` if needed and opens `directory/tombola.sqlite`.
    public convenience init(
        directory: String, onError: @escaping @Sendable (any Error) -> Void = { _ in }
    ) throws(StorageError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError(.cannotOpen, detail: "cannot create the data directory")
        }
        try self.init(path: (directory as NSString).appendingPathComponent(Self.fileName), onError: onError)
    }

    /// Opens and migrates the database at `path` on the calling thread, then starts the
    /// storage thread. `onError` receives failures of `async` work that has no completion.
    public init(path: String, onError: @escaping @Sendable (any Error) -> Void = { _ in }) throws(StorageError) {
        let database = try Database(path: path)
        worker = Worker(database: database, onError: onError)
        let worker = self.worker
        let thread = Thread { worker.run() }
        thread.name = "tombola-storage"
        thread.start()
    }

    deinit {
        worker.close()
    }

    /// Queues `work`; a thrown error goes to `onError`. Storage calls throw `StorageError`.
    public func async(_ work: @escaping @Sendable (Database) throws -> Void) {
        let onError = worker.onError
        if !worker.enqueue({ database in
            do { try work(database) } catch { onError(error) }
        }) {
            onError(StorageError(.closed))
        }
    }

    /// Queues `work`; `completion` gets its result (or error: `StorageError` from storage
    /// calls, else whatever `work` threw) on the storage thread, or `.closed` at once.
    public func async<T: Sendable>(
        _ work: @escaping @Sendable (Database) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        if !worker.enqueue({ database in
            do { completion(.success(try work(database))) } catch { completion(.failure(error)) }
        }) {
            completion(.failure(StorageError(.closed)))
        }
    }

    /// Runs `work` on the storage thread and waits for it (start-up, shutdown, tests;
    /// never on an event-loop thread). Called from the storage thread itself, it runs inline.
    public func sync<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) throws -> T {
        if let database = worker.databaseIfOnStorageThread() { return try work(database) }
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        guard worker.enqueue({ database in
            do { box.result = .success(try work(database)) } catch { box.result = .failure(error) }
            done.signal()
        }) else {
            throw StorageError(.closed)
        }
        done.wait()
        return try box.result!.get()
    }

    /// Runs the queued work, closes the database and stops the thread. Later calls fail with `.closed`.
    public func close() {
        worker.close()
    }
}

/// Written on the storage thread before `done.signal()`, read after `done.wait()`.
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

/// The job list and the storage thread's loop.
/// Locking rule: `jobs`, `closed`, `finished` and `thread` are guarded by `condition`;
/// `database` is touched only by the storage thread once `run()` starts.
private final class Worker: @unchecked Sendable {
    typealias Job = @Sendable (Database) -> Void

    let onError: @Sendable (any Error) -> Void
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var closed = false
    private var finished = false
    private var database: Database?
    private var thread: pthread_t?

    init(database: Database, onError: @escaping @Sendable (any Error) -> Void) {
        self.database = database
        self.onError = onError
    }

    /// False if the queue is closed.
    func enqueue(_ job: @escaping Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// The database when called from the storage thread itself, else nil.
    func databaseIfOnStorageThread() -> Database? {
        condition.lock()
        let thread = self.thread
        condition.unlock()
        guard let thread, pthread_equal(thread, pthread_self()) != 0 else { return nil }
        return database
    }

    func run() {
        condition.lock()
        thread = pthread_self()
        condition.unlock()
        while true {
            condition.lock()
            while jobs.isEmpty && !closed { condition.wait() }
            let batch = jobs
            jobs.removeAll()
            let stop = closed && batch.isEmpty
            condition.unlock()
            if stop { break }
            for job in batch { job(database!) }
        }
        database = nil // closes the connection on this thread
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Stops accepting work, lets queued work finish and waits for the thread to end
    /// (without waiting when called from the storage thread itself, which would deadlock).
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        let onStorageThread = thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        while !finished && !onStorageThread { condition.wait() }
        condition.unlock()
    }
}
