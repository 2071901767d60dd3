import Glibc
import Posix
import Testing

/// A pipe whose ends the test owns; the watcher only reports readiness.
private final class Pipe: @unchecked Sendable {
    // @unchecked Sendable: the descriptors are plain numbers, closed once in deinit.
    let readEnd: Int32
    let writeEnd: Int32

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        readEnd = fds[0]
        writeEnd = fds[1]
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }
}

@Suite struct DescriptorWatcherTests {
    @Test func reportsReadabilityUntilCancelledAndNeverTouchesTheDescriptor() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let pipe = Pipe()
        let events = Recorder<String>()
        let watcher = Recorder<LoopBound<DescriptorWatcher>>()
        loop.execute {
            let w = DescriptorWatcher(fd: pipe.readEnd, loop: loop, onReadable: {
                var byte: UInt8 = 0
                if read(pipe.readEnd, &byte, 1) == 1 { events.append("read \(byte)") }
            }, onWritable: { events.append("writable") }, onLoopClose: { events.append("loop closing") })
            w.watchRead(true)
            watcher.append(LoopBound(w, loop: loop))
        }
        let bound = try #require(watcher.wait { !$0.isEmpty }.first)
        var one: UInt8 = 1
        _ = write(pipe.writeEnd, &one, 1)
        #expect(events.wait { $0.contains("read 1") } == ["read 1"])

        bound.execute { $0.cancel() }
        let cancelled = Recorder<Bool>()
        bound.execute { cancelled.append($0.isCancelled) }
        #expect(cancelled.wait { !$0.isEmpty } == [true])
        var two: UInt8 = 2
        _ = write(pipe.writeEnd, &two, 1)
        // A marker task proves the loop went round after the write; the byte stays unread.
        let marker = Recorder<Int>()
        loop.execute { marker.append(1) }
        marker.wait { !$0.isEmpty }
        loop.execute { marker.append(2) }
        marker.wait { $0.count == 2 }
        var byte: UInt8 = 0
        #expect(read(pipe.readEnd, &byte, 1) == 1 && byte == 2)
        #expect(events.all == ["read 1"])
    }

    @Test func reportsWritabilityOnlyWhileAsked() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let pipe = Pipe()
        let events = Recorder<String>()
        loop.execute {
            var watcher: DescriptorWatcher?
            watcher = DescriptorWatcher(fd: pipe.writeEnd, loop: loop, onReadable: {}, onWritable: {
                events.append("writable")
                // Level-triggered: stop asking, or this would repeat every iteration.
                watcher?.watchWrite(false)
                watcher?.cancel()
                watcher = nil
            }, onLoopClose: {})
            watcher?.watchWrite(true)
        }
        #expect(events.wait { !$0.isEmpty } == ["writable"])
        let marker = Recorder<Int>()
        loop.execute { loop.execute { marker.append(1) } }
        marker.wait { !$0.isEmpty }
        #expect(events.all == ["writable"])
    }
}
