import Foundation
import Locking
import Testing
@testable import Storage

@Suite struct StorageQueueTests {
    @Test func runsWorkInOrderAndDeliversResultsToCompletions() throws {
        let dir = TemporaryDirectory()
        let queue = try StorageQueue(path: dir.path("t.sqlite"))
        let results = Lock<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        queue.async { db in try db.insertDraw(draw()) }
        for i in 0..<10 {
            queue.async({ db in
                try db.appendRecord(record(index: i))
                return try db.loadRecords(drawCode: "ABC234").count
            }, completion: { result in
                results.withLock { $0.append((try? result.get()) ?? -1) }
                done.signal()
            })
        }
        for _ in 0..<10 { #expect(done.wait(timeout: .now() + 10) == .success) }
        #expect(results.withLock { $0 } == Array(1...10))
    }

    @Test func reportsFailuresToTheCompletion() throws {
        let dir = TemporaryDirectory()
        let queue = try StorageQueue(path: dir.path("t.sqlite"))
        let code = Lock<StorageError.Code?>(nil)
        let done = DispatchSemaphore(value: 0)
        queue.async({ db in try db.appendRecord(record(index: 0)) }, completion: { result in
            if case .failure(let error) = result { code.withLock { $0 = (error as? StorageError)?.code } }
            done.signal()
        })
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(code.withLock { $0 } == .notFound)
    }

    @Test func sendsErrorsOfFireAndForgetWorkToOnError() throws {
        let dir = TemporaryDirectory()
        let code = Lock<StorageError.Code?>(nil)
        let done = DispatchSemaphore(value: 0)
        let queue = try StorageQueue(path: dir.path("t.sqlite"), onError: { error in
            code.withLock { $0 = (error as? StorageError)?.code }
            done.signal()
        })
        queue.async { db in try db.updateConfig(code: "X", configJSON: "{}") }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(code.withLock { $0 } == .notFound)
    }

    @Test func syncReturnsResultsAndThrowsTypedErrors() throws {
        let dir = TemporaryDirectory()
        let queue = try StorageQueue(path: dir.path("t.sqlite"))
        try queue.sync { db in try db.insertDraw(draw()) }
        #expect(try queue.sync { db in try db.loadDraws() } == [draw()])
        #expect(storageError { try queue.sync { db in try db.insertDraw(draw()) } } == .alreadyExists)
    }

    @Test func syncFromTheStorageThreadRunsInline() throws {
        let dir = TemporaryDirectory()
        let queue = try StorageQueue(path: dir.path("t.sqlite"))
        let count = try queue.sync { [queue] db in
            try db.insertDraw(draw())
            return try queue.sync { inner in try inner.loadDraws().count }
        }
        #expect(count == 1)
    }

    @Test func closeFinishesQueuedWorkThenRefusesMore() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("t.sqlite")
        let queue = try StorageQueue(path: path)
        queue.async { db in try db.insertDraw(draw()) }
        for i in 0..<20 { queue.async { db in try db.appendRecord(record(index: i)) } }
        queue.close()
        #expect(storageError { _ = try queue.sync { db in try db.loadDraws() } } == .closed)
        let refused = Lock<StorageError.Code?>(nil)
        queue.async({ _ in 1 }, completion: { result in
            if case .failure(let error) = result { refused.withLock { $0 = (error as? StorageError)?.code } }
        })
        #expect(refused.withLock { $0 } == .closed)

        // Everything queued before close is on disk for the next start.
        let reopened = try StorageQueue(path: path)
        #expect(try reopened.sync { db in try db.loadRecords(drawCode: "ABC234").count } == 20)
        #expect(try reopened.sync { db in db.integrityCheck() })
    }
}

@Suite struct StorageQueueLifecycleTests {
    @Test func opensADataDirectoryCreatingIt() throws {
        let dir = TemporaryDirectory()
        let data = dir.path("nested/data")
        let queue = try StorageQueue(directory: data)
        try queue.sync { db in try db.insertDraw(draw()) }
        queue.close()
        #expect(FileManager.default.fileExists(atPath: data + "/" + StorageQueue.fileName))
    }

    @Test func releasingTheLastReferenceOnTheStorageThreadDoesNotDeadlock() throws {
        let dir = TemporaryDirectory()
        let done = DispatchSemaphore(value: 0)
        do {
            let queue = try StorageQueue(path: dir.path("t.sqlite"))
            // The job holds the only other reference; it is dropped on the storage thread.
            queue.async { [queue] _ in
                _ = queue
                done.signal()
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
    }
}

@Suite struct StorageQueueErrorTests {
    struct CallerError: Error, Equatable {}

    @Test func deliversTheCallersOwnErrorsUnchanged() throws {
        let dir = TemporaryDirectory()
        let queue = try StorageQueue(path: dir.path("t.sqlite"))
        let got = Lock<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        queue.async({ _ -> Int in throw CallerError() }, completion: { result in
            if case .failure(let error) = result { got.withLock { $0 = error is CallerError } }
            done.signal()
        })
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(got.withLock { $0 })
        #expect(throws: CallerError.self) { try queue.sync { _ -> Int in throw CallerError() } }
    }
}
